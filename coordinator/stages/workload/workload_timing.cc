#include "coordinator/stages/workload/workload_timing.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

bool Waits(const workload::Op& op) {
  return !op.overlapped && op.kind != workload::OpKind::kCompute &&
         op.kind != workload::OpKind::kWait && op.kind != workload::OpKind::kSend &&
         op.kind != workload::OpKind::kRecv;
}

bool IsCollective(const workload::Op& op) {
  return op.kind != workload::OpKind::kCompute && op.kind != workload::OpKind::kWait &&
         op.kind != workload::OpKind::kSend && op.kind != workload::OpKind::kRecv;
}

// Where each rank's collectives sit: the k-th collective on a group is the
// same one on each member (a computed shape's members run one program, so
// it is the same index; a logged step's ranks run different programs with
// the same collectives on each communicator).
class SameOp {
 public:
  explicit SameOp(const std::vector<std::vector<workload::Op>>& programs)
      : programs_(programs), ordinal_(programs.size()), at_(programs.size()) {
    for (size_t r = 0; r < programs.size(); ++r) {
      std::map<int, int> count;
      for (size_t i = 0; i < programs[r].size(); ++i) {
        const workload::Op& op = programs[r][i];
        const int k = IsCollective(op) ? count[workload::CommKey(op)]++ : -1;
        ordinal_[r].push_back(k);
        if (k >= 0) at_[r][{workload::CommKey(op), k}] = i;
      }
    }
  }
  // Op i of rank r, on member m.
  size_t On(size_t m, size_t r, size_t i) const {
    if (m == r) return i;
    return at_[m].at({workload::CommKey(programs_[r][i]), ordinal_[r][i]});
  }

 private:
  const std::vector<std::vector<workload::Op>>& programs_;
  std::vector<std::vector<int>> ordinal_;
  std::vector<std::map<std::pair<int, int>, size_t>> at_;
};

// Per rank, step `s`: how much longer than the same transfer elsewhere its
// groups' transfers took (workload_timing.h).
std::vector<double> SlowGroupExcess(const workload::Placement& placement,
                                    const std::vector<std::vector<workload::Op>>& programs,
                                    const std::vector<workload::ReplayReport>& reports, size_t s,
                                    const SameOp& same_op) {
  const size_t ranks = programs.size();
  auto ms = [&](size_t r, size_t i) { return reports[r].steps[s].op_ms[i]; };
  // Per rank, per kind of group it crosses nodes in: the summed excess.
  std::vector<std::map<workload::Group, double>> by_kind(ranks);
  // A collective's own time is its last arrival's (the shortest member's):
  // compared with every group that ran one of the same kind and size.
  using Key = std::tuple<workload::OpKind, workload::Group, uint64_t>;
  std::map<Key, std::vector<std::pair<size_t, double>>> same;
  for (size_t r = 0; r < ranks; ++r) {
    for (size_t i = 0; i < programs[r].size(); ++i) {
      const workload::Op& op = programs[r][i];
      if (!IsCollective(op)) continue;
      double shortest = ms(r, i);
      bool crosses = false;  // a group inside one node says nothing of a link
      for (int m : workload::MembersOf(placement, static_cast<int>(r), op)) {
        shortest = std::min(shortest,
                            ms(static_cast<size_t>(m), same_op.On(static_cast<size_t>(m), r, i)));
        crosses |= placement.ranks[static_cast<size_t>(m)].node != placement.ranks[r].node;
      }
      if (!crosses) continue;
      same[{op.kind, op.group, op.bytes}].emplace_back(r, shortest);
    }
  }
  for (const auto& [key, entries] : same) {
    std::vector<double> times;
    for (const auto& e : entries) times.push_back(e.second);
    const double reference = stats::Median(times);
    for (const auto& [r, own] : entries) by_kind[r][std::get<1>(key)] += own - reference;
  }
  // A receive is compared with the same receive of the other data-parallel
  // replicas (same stage, same program); its excess is the pair's, so both
  // ends carry it.
  for (size_t r = 0; r < ranks; ++r) {
    for (size_t i = 0; i < programs[r].size(); ++i) {
      const workload::Op& op = programs[r][i];
      if (op.kind != workload::OpKind::kRecv || op.overlapped || op.peer < 0 ||
          placement.ranks[static_cast<size_t>(op.peer)].node == placement.ranks[r].node) {
        continue;
      }
      std::vector<double> replicas;
      for (int m : placement.Members(static_cast<int>(r), workload::Group::kDp)) {
        replicas.push_back(ms(static_cast<size_t>(m), i));
      }
      if (replicas.size() < 2) continue;  // nothing to compare with
      const double e = ms(r, i) - stats::Median(replicas);
      by_kind[r][workload::Group::kPp] += e;
      by_kind[static_cast<size_t>(op.peer)][workload::Group::kPp] += e;
    }
  }
  // A slow link slows every kind of group its node is in; a partner of it
  // is slow in one kind only (the one it shares): the least of the kinds.
  std::vector<double> excess(ranks, 0);
  for (size_t r = 0; r < ranks; ++r) {
    for (auto it = by_kind[r].begin(); it != by_kind[r].end(); ++it) {
      excess[r] = it == by_kind[r].begin() ? it->second : std::min(excess[r], it->second);
    }
  }
  return excess;
}

}  // namespace

absl::StatusOr<std::vector<StepTimes>> StepTimesOf(
    const workload::Placement& placement, const std::vector<std::vector<workload::Op>>& programs,
    const std::vector<workload::ReplayReport>& reports) {
  const size_t ranks = static_cast<size_t>(placement.size());
  if (programs.size() != ranks || reports.size() != ranks) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", ranks,
                                                   " ranks' programs and reports, got ",
                                                   programs.size(), " and ", reports.size()));
  }
  const size_t steps = reports[0].steps.size();
  for (size_t r = 0; r < ranks; ++r) {
    if (reports[r].steps.size() != steps) {
      return absl::InvalidArgumentError(absl::StrCat(
          "rank ", r, " reported ", reports[r].steps.size(), " steps, rank 0 ", steps));
    }
    for (const workload::RankStep& s : reports[r].steps) {
      if (s.op_ms.size() != programs[r].size()) {
        return absl::InvalidArgumentError(absl::StrCat("rank ", r, " timed ", s.op_ms.size(),
                                                       " ops of a ", programs[r].size(),
                                                       "-op program"));
      }
    }
  }
  std::vector<StepTimes> out(steps);
  const SameOp same_op(programs);
  for (size_t s = 0; s < steps; ++s) {
    StepTimes& t = out[s];
    t.wait_ms.assign(ranks, 0);
    t.late_ms.assign(ranks, 0);
    for (size_t r = 0; r < ranks; ++r) {
      t.step_ms.push_back(reports[r].steps[s].step_ms);
      t.exposed_ms.push_back(reports[r].steps[s].exposed_ms);
      const std::vector<workload::Op>& program = programs[r];
      for (size_t i = 0; i < program.size(); ++i) {
        if (!Waits(program[i])) continue;
        // Members of one group run the same program, so op i is the same
        // collective on each of them.
        const double own = reports[r].steps[s].op_ms[i];
        double shortest = own;
        std::vector<double> others;
        for (int m : workload::MembersOf(placement, static_cast<int>(r), program[i])) {
          const double d = reports[static_cast<size_t>(m)]
                               .steps[s]
                               .op_ms[same_op.On(static_cast<size_t>(m), r, i)];
          shortest = std::min(shortest, d);
          if (m != static_cast<int>(r)) others.push_back(d);
        }
        t.wait_ms[r] += own - shortest;
        t.late_ms[r] += stats::Median(others) - own;
      }
    }
    t.slow_ms = SlowGroupExcess(placement, programs, reports, s, same_op);
  }
  return out;
}

}  // namespace nodeprobe::coordinator
