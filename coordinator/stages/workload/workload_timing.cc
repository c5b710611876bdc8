#include "coordinator/stages/workload/workload_timing.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

bool Waits(const workload::Op& op) {
  return !op.overlapped && op.kind != workload::OpKind::kCompute &&
         op.kind != workload::OpKind::kWait && op.kind != workload::OpKind::kSend &&
         op.kind != workload::OpKind::kRecv;
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
        for (int m : placement.Members(static_cast<int>(r), program[i].group)) {
          const double d = reports[static_cast<size_t>(m)].steps[s].op_ms[i];
          shortest = std::min(shortest, d);
          if (m != static_cast<int>(r)) others.push_back(d);
        }
        t.wait_ms[r] += own - shortest;
        t.late_ms[r] += stats::Median(others) - own;
      }
    }
  }
  return out;
}

}  // namespace nodeprobe::coordinator
