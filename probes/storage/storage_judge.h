// File: storage_judge.h
// The storage probe's judgement of one path's figures against the
// profile's storage.* bars (a bar left out is measured, not judged):
//   (its findings, with severity and remedy: probes/storage/storage_findings.h)
#pragma once

#include "nodeprobe/v1/result.pb.h"
#include "probes/storage/storage_profile.h"

namespace nodeprobe::storage {

// Adds the findings about `path` (its device: the path) to `result`.
void JudgeStoragePath(const v1::StoragePath& path, const StorageRules& rules,
                      v1::ProbeResult* result);

}  // namespace nodeprobe::storage
