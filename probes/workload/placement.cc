#include "probes/workload/placement.h"

#include "absl/strings/str_cat.h"

namespace nodeprobe::workload {

const char* GroupName(Group group) {
  switch (group) {
    case Group::kTp:
      return "tp";
    case Group::kPp:
      return "pp";
    case Group::kDp:
      return "dp";
    case Group::kEp:
      return "ep";
  }
  return "?";
}

std::vector<int> Placement::Members(int rank, Group group) const {
  const RankPlace& p = ranks.at(static_cast<size_t>(rank));
  auto at = [&](int t, int d, int s) { return t + tp * (d + dp * s); };
  std::vector<int> out;
  switch (group) {
    case Group::kTp:
      for (int t = 0; t < tp; ++t) out.push_back(at(t, p.dp_index, p.pp_index));
      break;
    case Group::kDp:
      for (int d = 0; d < dp; ++d) out.push_back(at(p.tp_index, d, p.pp_index));
      break;
    case Group::kPp:
      for (int s = 0; s < pp; ++s) out.push_back(at(p.tp_index, p.dp_index, s));
      break;
    case Group::kEp: {
      const int first = p.dp_index / ep * ep;
      for (int d = first; d < first + ep; ++d) out.push_back(at(p.tp_index, d, p.pp_index));
      break;
    }
  }
  return out;
}

absl::StatusOr<Placement> Place(const WorkloadShape& shape, int nodes, int ranks_per_node) {
  Placement pl;
  pl.ranks_per_node = shape.ranks_per_node > 0 ? shape.ranks_per_node : ranks_per_node;
  if (nodes < 1 || pl.ranks_per_node < 1) {
    return absl::InvalidArgumentError("the workload stage needs at least one node with a rank");
  }
  const int ranks = nodes * pl.ranks_per_node;
  pl.tp = shape.tp;
  pl.pp = shape.pp;
  pl.ep = shape.ep;
  const int model = shape.tp * shape.pp;
  if (shape.dp > 0) {
    pl.dp = shape.dp;
  } else if (ranks % model == 0) {
    pl.dp = ranks / model;
  } else {
    pl.dp = 0;
  }
  if (pl.dp < 1 || static_cast<int64_t>(pl.tp) * pl.pp * pl.dp != ranks) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.tp x pp x dp (", shape.tp, " x ", shape.pp, " x ",
                     shape.dp > 0 ? absl::StrCat(shape.dp) : std::string("rest"),
                     ") does not make the ", ranks, " ranks of ", nodes, " nodes x ",
                     pl.ranks_per_node, " ranks: change the shape or the nodes given"));
  }
  if (!shape.tp_across_nodes && (pl.tp > pl.ranks_per_node || pl.ranks_per_node % pl.tp != 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("workload.tp ", pl.tp, " does not fit inside a node of ", pl.ranks_per_node,
                     " ranks: lower workload.tp or set workload.tp_across_nodes: true"));
  }
  if (pl.dp % pl.ep != 0) {
    return absl::InvalidArgumentError(absl::StrCat("workload.ep ", pl.ep,
                                                   " must divide the data-parallel size ", pl.dp,
                                                   " (experts are sharded over DP ranks)"));
  }
  for (int r = 0; r < ranks; ++r) {
    RankPlace p;
    p.rank = r;
    p.node = r / pl.ranks_per_node;
    p.local_rank = r % pl.ranks_per_node;
    p.tp_index = r % pl.tp;
    p.dp_index = (r / pl.tp) % pl.dp;
    p.pp_index = r / (pl.tp * pl.dp);
    pl.ranks.push_back(p);
  }
  return pl;
}

}  // namespace nodeprobe::workload
