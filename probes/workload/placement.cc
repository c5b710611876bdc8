#include "probes/workload/placement.h"

#include <algorithm>
#include <map>
#include <set>

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

absl::StatusOr<Placement> PlaceLogged(const LoggedStep& step, int nodes, int ranks_per_node) {
  Placement pl;
  pl.ranks_per_node = ranks_per_node;
  const int ranks = static_cast<int>(step.programs.size());
  if (nodes < 1 || ranks_per_node < 1 || nodes * ranks_per_node != ranks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "workload.programs has ", ranks, " ranks and ", nodes, " nodes x ", ranks_per_node,
        " ranks make ", nodes * ranks_per_node,
        ": give as many nodes as the job had (its log's hosts), or set workload.ranks_per_node"));
  }
  std::map<std::string, int> index;
  for (const auto& [name, members] : step.communicators) {
    std::set<int> seen;
    for (int m : members) {
      if (m < 0 || m >= ranks || !seen.insert(m).second) {
        return absl::InvalidArgumentError(absl::StrCat("workload.communicators.", name,
                                                       " names rank ", m, " twice or outside 0..",
                                                       ranks - 1));
      }
    }
    index[name] = static_cast<int>(pl.comms.size());
    pl.comms.emplace_back(name, members);
  }
  for (size_t r = 0; r < step.programs.size(); ++r) {
    for (const LoggedOp& op : step.programs[r]) {
      auto it = index.find(op.comm);
      const std::string where =
          absl::StrCat("workload.programs[", r, "] '", op.comm, " ", op.op, "'");
      if (it == index.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, " names a communicator workload.communicators does not define"));
      }
      const std::vector<int>& m = pl.comms[static_cast<size_t>(it->second)].second;
      if (std::find(m.begin(), m.end(), static_cast<int>(r)) == m.end() ||
          (op.peer >= 0 && std::find(m.begin(), m.end(), op.peer) == m.end())) {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": rank ", r, (op.peer >= 0 ? absl::StrCat(" or rank ", op.peer) : ""),
            " is not a member of ", op.comm));
      }
    }
  }
  for (int r = 0; r < ranks; ++r) {
    pl.ranks.push_back({.rank = r, .node = r / ranks_per_node, .local_rank = r % ranks_per_node});
  }
  return pl;
}

absl::StatusOr<Placement> Place(const WorkloadShape& shape, int nodes, int ranks_per_node) {
  if (!shape.logged.communicators.empty() && shape.logged.empty()) {
    return absl::InvalidArgumentError(
        "workload.communicators is set without workload.programs: write both (`nodeprobe workload "
        "from-nccl-log` does)");
  }
  if (!shape.logged.empty()) {
    return PlaceLogged(shape.logged, nodes,
                       shape.ranks_per_node > 0 ? shape.ranks_per_node : ranks_per_node);
  }
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
