// File: storage_findings.h
// The finding codes the storage probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; storage_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kStoragePathUnusable = {
    "STORAGE_PATH_UNUSABLE", v1::ERROR, "storage",
    "a storage.paths entry is missing, not writable, or has no room for the checkpoint",
    "mount the filesystem, let the user nodeprobe runs as write there, or lower "
    "storage.shard_mb / storage.writers; the probe never fills a disk"};
inline constexpr FindingCode kStorageNotMeasured = {
    "STORAGE_NOT_MEASURED", v1::ERROR, "storage",
    "an I/O error or the stage's deadline stopped a storage measurement",
    "read the message: an I/O error points at the filesystem or its server; a deadline "
    "asks for a longer --timeout or a smaller storage.shard_mb"};
inline constexpr FindingCode kStorageWriteSlow = {
    "STORAGE_WRITE_SLOW", v1::FAIL, "storage",
    "the checkpoint's write bandwidth was below storage.checkpoint_write_min_gbps",
    "compare with a single writer and with fio on the same path; check the storage "
    "network's rail and MTU, the client's mount options (rsize/wsize, nconnect) and the "
    "server's load"};
inline constexpr FindingCode kStorageCheckpointSlow = {
    "STORAGE_CHECKPOINT_SLOW", v1::FAIL, "storage",
    "the slowest writer finished its shard after storage.checkpoint_max_s",
    "a checkpoint is as slow as its slowest rank: look for one slow writer (per-call p99), "
    "a full or throttled target, or writers contending for one server"};
inline constexpr FindingCode kStorageReadSlow = {
    "STORAGE_READ_SLOW", v1::FAIL, "storage",
    "reading the shards back cold was below storage.read_min_gbps",
    "check read-ahead and rsize on the client, the storage rail, and whether random reads "
    "hit spinning disks or a cold tier"};
inline constexpr FindingCode kStorageMetadataSlow = {
    "STORAGE_METADATA_SLOW", v1::FAIL, "storage",
    "a metadata operation's p99 latency was above storage.metadata_p99_max_ms",
    "small-file and directory work waits on the metadata server: check its load, the "
    "client's attribute caching (actimeo) and lock contention in shared directories"};

}  // namespace nodeprobe::findings
