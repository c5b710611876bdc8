// Tasks that are the ranks of one job across nodes (the collective stage's
// NCCL ranks, the workload stage's replay ranks): awaited together, and
// once one rank has failed the others get a grace to answer by themselves,
// then are stopped. A rank blocked in a collective whose peer died would
// otherwise wait to the run's deadline.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::coordinator {

struct RankTask {
  AgentSession* node = nullptr;
  std::string task_id;
  bool sent = true;  // false: it never started (it counts as failed)
};

struct RankReply {
  std::optional<v1::TaskResult> result;  // its answer
  std::string lost;                      // why there is none
};

// Every sent rank's answer, awaited in parallel until `deadline`.
// `finished` says whether an answer is a rank that ran to its end; after
// the first that did not (or a rank that never started), the ranks still
// out get `grace`, then are cancelled and reported as stopped.
std::vector<RankReply> AwaitRanks(const std::vector<RankTask>& ranks, absl::Time deadline,
                                  absl::Duration grace,
                                  const std::function<bool(const v1::TaskResult&)>& finished);

}  // namespace nodeprobe::coordinator
