#include "coordinator/stages/workload/workload_judge.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/stages/workload/workload_findings.h"
#include "platform/statistics.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

void JudgeStepTimes(const std::vector<StepTimes>& steps, WorkloadJudgement* j) {
  std::vector<double> step_ms, share;
  for (const StepTimes& s : steps) {
    // A synchronous job's step ends with its slowest rank.
    step_ms.push_back(*std::max_element(s.step_ms.begin(), s.step_ms.end()));
    std::vector<double> exposed;
    for (size_t r = 0; r < s.step_ms.size(); ++r) {
      if (s.step_ms[r] > 0) exposed.push_back(s.exposed_ms[r] / s.step_ms[r]);
    }
    share.push_back(stats::Median(exposed));
  }
  j->step_p50_ms = stats::Percentile(step_ms, 0.5);
  j->step_p99_ms = stats::Percentile(step_ms, 0.99);
  j->step_max_ms = *std::max_element(step_ms.begin(), step_ms.end());
  j->step_cv = stats::CoefficientOfVariation(step_ms);
  j->comm_share = stats::Median(share);
}

}  // namespace

WorkloadJudgement JudgeSteps(const std::vector<StepTimes>& steps, const WorkloadRules& rules,
                             double noise_sigmas, double max_spread) {
  WorkloadJudgement j;
  if (steps.empty() || steps.front().step_ms.empty()) return j;
  const size_t ranks = steps.front().step_ms.size();
  JudgeStepTimes(steps, &j);
  j.too_noisy = j.step_cv > max_spread;
  if (ranks < 2) return j;

  std::vector<std::vector<double>> late(ranks);
  for (const StepTimes& s : steps) {
    for (size_t r = 0; r < ranks; ++r) late[r].push_back(r < s.late_ms.size() ? s.late_ms[r] : 0);
  }
  std::vector<double> median_late(ranks);
  for (size_t r = 0; r < ranks; ++r) median_late[r] = stats::Median(late[r]);
  const size_t candidate = static_cast<size_t>(
      std::max_element(median_late.begin(), median_late.end()) - median_late.begin());
  int latest = 0;
  for (size_t s = 0; s < steps.size(); ++s) {
    bool is_latest = true;
    for (size_t r = 0; r < ranks; ++r) is_latest &= late[r][s] <= late[candidate][s];
    latest += is_latest;
  }
  std::vector<double> others;  // every other rank's lateness in every step
  for (size_t r = 0; r < ranks; ++r) {
    if (r != candidate) others.insert(others.end(), late[r].begin(), late[r].end());
  }
  j.late_rank = static_cast<int>(candidate);
  j.late_ms = median_late[candidate];
  j.late_share = static_cast<double>(latest) / static_cast<double>(steps.size());
  j.bar_ms = rules.skew_max_ms ? *rules.skew_max_ms : 0.05 * j.step_p50_ms;
  // The candidate's figure is a median over the steps: its noise is the
  // others' spread in one step, as the error of such a median.
  j.noise_ms =
      stats::Median(others) + noise_sigmas * stats::MedianStandardError(others, steps.size());
  j.straggler = j.late_share >= 0.75 && j.late_ms > j.bar_ms && j.late_ms > j.noise_ms;
  if (!j.straggler) j.late_rank = -1;
  return j;
}

void AddWorkloadFindings(const WorkloadJudgement& j, const WorkloadRules& rules,
                         const std::vector<std::string>& rank_node, bool confirmed,
                         google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (j.too_noisy) {
    AddFinding(findings, findings::kMeasurementTooNoisy.code, "workload",
               absl::StrFormat("step times vary by %.0f%% (coefficient of variation): too noisy "
                               "to name a late rank or judge a bar; run again on quiet nodes",
                               100 * j.step_cv));
    return;
  }
  if (j.straggler) {
    const std::string node =
        j.late_rank < static_cast<int>(rank_node.size()) ? rank_node[j.late_rank] : "?";
    AddFinding(findings, findings::kWorkloadStraggler.code, confirmed ? v1::FAIL : v1::WARN,
               absl::StrCat(node, " rank ", j.late_rank),
               absl::StrFormat("rank %d on %s was the last to arrive in %.0f%% of the steps; the "
                               "others waited %.2f ms for it per step (bar %.2f ms, noise %.2f "
                               "ms)%s",
                               j.late_rank, node, 100 * j.late_share, j.late_ms, j.bar_ms,
                               j.noise_ms, confirmed ? ", again when measured a second time" : ""));
  }
  if (rules.step_time_max_ms && j.step_p50_ms > *rules.step_time_max_ms) {
    AddFinding(findings, findings::kWorkloadStepSlow.code, "workload",
               absl::StrFormat("median step %.1f ms, above workload.step_time_max_ms %.1f",
                               j.step_p50_ms, *rules.step_time_max_ms));
  }
  if (j.step_cv > rules.step_cv_max) {
    AddFinding(
        findings, findings::kWorkloadStepJitter.code, "workload",
        absl::StrFormat("step time varies by %.1f%% (coefficient of variation), above "
                        "workload.step_cv_max %.1f%%; p99 %.1f ms against a median %.1f ms",
                        100 * j.step_cv, 100 * rules.step_cv_max, j.step_p99_ms, j.step_p50_ms));
  }
  if (j.comm_share > rules.comm_share_max) {
    AddFinding(findings, findings::kWorkloadCommBound.code, "workload",
               absl::StrFormat("%.0f%% of the step waits in communication, above "
                               "workload.comm_share_max %.0f%%",
                               100 * j.comm_share, 100 * rules.comm_share_max));
  }
}

}  // namespace nodeprobe::coordinator
