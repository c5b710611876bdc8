// The workload stage's ranks on the agents: one RunWorkloadRank task per
// rank (tasks/workload_rank_task.h), rank 0 first. Rank 0 serves the run's
// rendezvous store and answers with its port; the others are then pointed
// at it. Every store request carries a secret made for this run, so a
// stranger on the network can neither read nor poison the ranks' meeting.
// Each rank binds to its node's first rail's address (the data path), the
// agent's own address on a node without one.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/workload/replay_report.h"

namespace nodeprobe::coordinator {

struct RankRun {
  std::vector<workload::ReplayReport> reports;  // per rank, when every rank finished
  // "node rank r: why" for each rank that did not; empty when all did.
  std::vector<std::string> failures;
};

// How every rank runs: the library ("nccl" or "gloo") and, for NCCL, each
// rank's NCCL_* settings (its node's).
struct RankLibrary {
  std::string name = "gloo";
  std::vector<std::map<std::string, std::string>> env;  // per rank; empty for Gloo
  v1::WorkloadBurst burst;  // run beside the steps by each node's first rank (kind "": none)
};

// `rank_nodes[r]` runs rank r; the shape is `profile`'s workload: section,
// placed on `nodes` nodes of `ranks_per_node` ranks.
RankRun RunWorkloadRanks(const std::vector<AgentSession*>& rank_nodes, int nodes,
                         int ranks_per_node, const RankLibrary& library,
                         const v1::AcceptanceProfile& profile, absl::Time deadline);

}  // namespace nodeprobe::coordinator
