// File: local_collectives.h
// A collective run over this node's GPUs: one worker process per GPU
// (`nodeprobe task`, RunCollective), rank = local CUDA ordinal. Rank 0
// starts first and hands out the unique id; the others start with it. When
// a rank fails or is lost, the others get a short grace to answer (they see
// NCCL's remote error), then are stopped.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nodeprobe/v1/task.pb.h"
#include "probes/nccl/collective_judge.h"

namespace nodeprobe::nccl {

struct LocalRun {
  std::string worker_exe;
  v1::CollectiveOptions options;
  int gpus = 0;
  std::map<std::string, std::string> env;  // NCCL_* for every rank
  v1::AcceptanceProfile profile;
  std::string node;
  absl::Time deadline;
};

inline constexpr char kLocalRankOrder[] = "local CUDA ordinal (rank r = GPU r)";

std::vector<RankAnswer> RunLocalRanks(const LocalRun& run);

}  // namespace nodeprobe::nccl
