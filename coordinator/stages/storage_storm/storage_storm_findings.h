// File: storage_storm_findings.h
// The finding codes the storage storm stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by storage_storm_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kStorageStormSlow = {
    "STORAGE_STORM_SLOW", v1::FAIL, "storage storm (run --storage-storm)",
    "every node checkpointing at once took longer than storage.checkpoint_max_s",
    "the shared filesystem cannot absorb the job's synchronous checkpoint: look at the "
    "slowest node and the aggregate against the servers' rating, spread checkpoints over "
    "time (async or staggered saves) or add storage bandwidth"};

inline constexpr FindingCode kStorageStormLatency = {
    "STORAGE_STORM_LATENCY", v1::WARN, "storage storm (run --storage-storm)",
    "latency between two nodes blew up while every node checkpointed",
    "storage and compute traffic share the wires or queues: put storage on its own rail or "
    "traffic class (a separate priority and ECN profile), or rate-limit checkpoint writes"};

}  // namespace nodeprobe::findings
