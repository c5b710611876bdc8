#include "coordinator/stages/workload/workload_record.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

void AddOpTimes(const workload::Placement& placement,
                const std::vector<std::vector<workload::Op>>& programs,
                const std::vector<workload::ReplayReport>& reports, v1::WorkloadReport* out) {
  using Key = std::tuple<std::string, workload::OpKind, uint64_t>;
  std::map<Key, std::vector<double>> times, alone;
  std::map<Key, uint32_t> count;
  for (size_t r = 0; r < programs.size(); ++r) {
    for (size_t i = 0; i < programs[r].size(); ++i) {
      const workload::Op& op = programs[r][i];
      if (op.kind == workload::OpKind::kCompute || op.kind == workload::OpKind::kWait) continue;
      const Key key{workload::GroupLabel(placement, op), op.kind, op.bytes};
      ++count[key];
      for (const workload::RankStep& s : reports[r].steps) times[key].push_back(s.op_ms[i]);
      if (i < reports[r].isolated_ms.size() && reports[r].isolated_ms[i] > 0) {
        alone[key].push_back(reports[r].isolated_ms[i]);
      }
    }
  }
  for (const auto& [key, ms] : times) {
    v1::WorkloadReport::OpTime* t = out->add_ops();
    t->set_group(std::get<0>(key));
    t->set_op(workload::OpKindName(std::get<1>(key)));
    t->set_bytes(std::get<2>(key));
    t->set_count(count[key]);
    t->set_median_ms(stats::Median(ms));
    if (alone.count(key)) t->set_isolated_ms(stats::Median(alone[key]));
  }
}

}  // namespace

std::string LayoutOf(const workload::Placement& pl) {
  if (!pl.comms.empty()) {
    return absl::StrCat("a logged step: ", pl.comms.size(), " communicators, ", pl.size(),
                        " ranks, ", pl.ranks_per_node, " per node");
  }
  return absl::StrCat("tp ", pl.tp, " x pp ", pl.pp, " x dp ", pl.dp,
                      pl.ep > 1 ? absl::StrCat(" (ep ", pl.ep, ")") : "", " = ", pl.size(),
                      " ranks, ", pl.ranks_per_node, " per node");
}

v1::WorkloadReport RecordOf(const workload::WorkloadShape& shape,
                            const workload::Placement& placement,
                            const std::vector<std::string>& rank_nodes,
                            const std::vector<std::vector<workload::Op>>& programs,
                            const std::vector<workload::ReplayReport>& reports,
                            const std::vector<StepTimes>& steps, const WorkloadJudgement& j) {
  v1::WorkloadReport out;
  out.set_shape(shape.name);
  out.set_layout(LayoutOf(placement));
  if (!reports.empty()) {
    out.set_library(reports[0].library);
    out.set_version(reports[0].version);
    out.set_transport(reports[0].transport);
  }
  for (const std::string& n : rank_nodes) out.add_rank_nodes(n);
  out.set_steps(static_cast<uint32_t>(steps.size()));
  out.set_step_p50_ms(j.step_p50_ms);
  out.set_step_p99_ms(j.step_p99_ms);
  out.set_step_max_ms(j.step_max_ms);
  out.set_step_cv(j.step_cv);
  out.set_comm_share(j.comm_share);
  out.set_late_rank(j.late_rank);
  if (j.late_rank >= 0 && j.late_rank < static_cast<int>(rank_nodes.size())) {
    out.set_late_node(rank_nodes[static_cast<size_t>(j.late_rank)]);
  }
  out.set_late_ms(j.late_ms);
  out.set_late_share(j.late_share);
  out.set_skew_bar_ms(j.bar_ms);
  out.set_noise_ms(j.noise_ms);
  for (size_t r = 0; r < rank_nodes.size(); ++r) out.add_waits();
  for (const StepTimes& s : steps) {
    out.add_step_ms(*std::max_element(s.step_ms.begin(), s.step_ms.end()));
    for (size_t r = 0; r < s.wait_ms.size() && r < rank_nodes.size(); ++r) {
      out.mutable_waits(static_cast<int>(r))->add_wait_ms(s.wait_ms[r]);
    }
  }
  AddOpTimes(placement, programs, reports, &out);
  return out;
}

}  // namespace nodeprobe::coordinator
