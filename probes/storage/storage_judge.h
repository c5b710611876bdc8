// File: storage_judge.h
// The storage probe's judgement of one path's figures against the
// profile's storage.* bars (a bar left out is measured, not judged):
//   STORAGE_WRITE_SLOW       FAIL  checkpoint bandwidth below checkpoint_write_min_gbps
//   STORAGE_CHECKPOINT_SLOW  FAIL  the slowest writer past checkpoint_max_s
//   STORAGE_READ_SLOW        FAIL  sequential or random read-back below read_min_gbps
//   STORAGE_METADATA_SLOW    FAIL  a metadata operation's p99 above metadata_p99_max_ms
#pragma once

#include "nodeprobe/v1/result.pb.h"
#include "probes/storage/storage_profile.h"

namespace nodeprobe::storage {

// Adds the findings about `path` (its device: the path) to `result`.
void JudgeStoragePath(const v1::StoragePath& path, const StorageRules& rules,
                      v1::ProbeResult* result);

}  // namespace nodeprobe::storage
