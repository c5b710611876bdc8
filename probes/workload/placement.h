// Where each rank of a workload shape runs and which groups it joins.
// Ranks are numbered node by node (node n holds n*ranks_per_node ...), and
// split as Megatron-LM orders its groups, tensor-parallel fastest, then
// data-parallel, pipeline slowest: rank = tp_i + tp*(dp_i + dp*pp_i). So a
// TP group is consecutive ranks (inside one node when ranks_per_node is a
// multiple of tp), each pipeline stage is a contiguous block of tp*dp
// ranks (consecutive nodes), and data parallelism spans the rest. Expert
// groups are blocks of `ep` consecutive members of a DP group (experts
// sharded over data-parallel ranks, as Megatron-LM and DeepSpeed-MoE do).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "probes/workload/workload_shape.h"

namespace nodeprobe::workload {

enum class Group { kTp, kPp, kDp, kEp };
const char* GroupName(Group group);  // "tp", "pp", "dp", "ep"

struct RankPlace {
  int rank = 0;
  int node = 0;        // index into the nodes given
  int local_rank = 0;  // on its node (its GPU)
  int tp_index = 0;
  int dp_index = 0;
  int pp_index = 0;  // its pipeline stage
};

struct Placement {
  int tp = 1, pp = 1, dp = 1, ep = 1;
  int ranks_per_node = 1;
  std::vector<RankPlace> ranks;
  // A logged step's communicators (WorkloadShape::logged): names and
  // members, which ops name by index (Op::comm). Empty for a computed shape.
  std::vector<std::pair<std::string, std::vector<int>>> comms;
  // The members of `group` that `rank` belongs to, in group order (for PP:
  // stage 0 first).
  std::vector<int> Members(int rank, Group group) const;
  // How many ranks each group of that kind holds.
  int GroupSize(Group group) const {
    return group == Group::kTp ? tp : group == Group::kDp ? dp : group == Group::kEp ? ep : pp;
  }
  int size() const { return static_cast<int>(ranks.size()); }
};

// Places a logged step: its ranks node by node, its communicators checked
// against them (one line naming the key when they do not fit).
absl::StatusOr<Placement> PlaceLogged(const LoggedStep& step, int nodes, int ranks_per_node);

// Places `shape` on `nodes` nodes of `ranks_per_node` ranks each (the
// shape's own ranks_per_node wins when set). INVALID_ARGUMENT, one line
// naming the key and the fix, when it does not fit: tp*pp*dp must equal the
// ranks, TP must fit inside a node (unless tp_across_nodes), ep must
// divide dp.
absl::StatusOr<Placement> Place(const WorkloadShape& shape, int nodes, int ranks_per_node);

}  // namespace nodeprobe::workload
