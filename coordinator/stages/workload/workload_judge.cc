#include "coordinator/stages/workload/workload_judge.h"

#include <algorithm>
#include <map>

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

namespace {

// The rank whose figure (`fig[rank][step]`) stands out over the steps: the
// highest median, how often the step's highest was on its node, and the
// noise of the ranks on the other nodes (pooled, as the error of a median
// over that many steps).
struct Standout {
  size_t rank = 0;
  double median_ms = 0;
  double share = 0;
  double noise_ms = 0;
};

Standout StandsOut(const std::vector<std::vector<double>>& fig, const std::vector<int>& node_of,
                   double noise_sigmas) {
  const size_t ranks = fig.size(), steps = fig[0].size();
  std::vector<double> median(ranks);
  for (size_t r = 0; r < ranks; ++r) median[r] = stats::Median(fig[r]);
  Standout out;
  out.rank = static_cast<size_t>(std::max_element(median.begin(), median.end()) - median.begin());
  out.median_ms = median[out.rank];
  int highest = 0;
  for (size_t s = 0; s < steps; ++s) {
    size_t top = 0;
    for (size_t r = 1; r < ranks; ++r) top = fig[r][s] > fig[top][s] ? r : top;
    highest += node_of[top] == node_of[out.rank];
  }
  out.share = static_cast<double>(highest) / static_cast<double>(steps);
  // Its node's other ranks share its cause (one link, one host): not noise.
  std::vector<double> others, rest;
  for (size_t r = 0; r < ranks; ++r) {
    if (r == out.rank) continue;
    std::vector<double>& pool = node_of[r] == node_of[out.rank] ? rest : others;
    pool.insert(pool.end(), fig[r].begin(), fig[r].end());
  }
  if (others.empty()) others = rest;
  out.noise_ms = stats::Median(others) + noise_sigmas * stats::MedianStandardError(others, steps);
  return out;
}

// The node whose groups' transfers stand out (`fig[rank][step]`: a rank's
// slow-group excess, workload_timing.h). Its partners carry part of it
// (one slow group each), so it is judged by its margin over the next
// node, step by step: the median of that difference, its noise the error
// of that median.
Standout SlowestNode(const std::vector<std::vector<double>>& fig, const std::vector<int>& node_of,
                     double noise_sigmas) {
  const size_t steps = fig[0].size();
  std::map<int, std::vector<double>> node;  // per node, per step: its ranks' mean
  std::map<int, int> count;
  for (size_t r = 0; r < fig.size(); ++r) {
    std::vector<double>& n = node[node_of[r]];
    n.resize(steps, 0);
    for (size_t s = 0; s < steps; ++s) n[s] += fig[r][s];
    ++count[node_of[r]];
  }
  std::vector<std::pair<double, int>> by_median;
  for (auto& [id, series] : node) {
    for (double& v : series) v /= count[id];
    by_median.push_back({stats::Median(series), id});
  }
  Standout out;
  if (by_median.size() < 2) return out;
  std::sort(by_median.rbegin(), by_median.rend());
  const int top = by_median[0].second, next = by_median[1].second;
  std::vector<double> margin;
  int highest = 0;
  for (size_t s = 0; s < steps; ++s) {
    margin.push_back(node[top][s] - node[next][s]);
    bool is_top = true;
    for (const auto& [id, series] : node) is_top &= series[s] <= node[top][s];
    highest += is_top;
  }
  for (size_t r = 0; r < fig.size(); ++r) {
    if (node_of[r] != top) continue;
    if (node_of[out.rank] != top || stats::Median(fig[r]) > stats::Median(fig[out.rank])) {
      out.rank = r;
    }
  }
  out.median_ms = stats::Median(margin);
  out.share = static_cast<double>(highest) / static_cast<double>(steps);
  out.noise_ms = noise_sigmas * stats::MedianStandardError(margin, steps);
  return out;
}

}  // namespace

WorkloadJudgement JudgeSteps(const std::vector<StepTimes>& steps, const WorkloadRules& rules,
                             double noise_sigmas, double max_spread, std::vector<int> node_of) {
  WorkloadJudgement j;
  if (steps.empty() || steps.front().step_ms.empty()) return j;
  const size_t ranks = steps.front().step_ms.size();
  JudgeStepTimes(steps, &j);
  j.too_noisy = j.step_cv > max_spread;
  if (ranks < 2) return j;
  if (node_of.size() != ranks) {
    node_of.resize(ranks);
    for (size_t r = 0; r < ranks; ++r) node_of[r] = static_cast<int>(r);
  }
  std::vector<std::vector<double>> late(ranks), slow(ranks);
  for (const StepTimes& s : steps) {
    for (size_t r = 0; r < ranks; ++r) {
      late[r].push_back(r < s.late_ms.size() ? s.late_ms[r] : 0);
      slow[r].push_back(r < s.slow_ms.size() ? s.slow_ms[r] : 0);
    }
  }
  j.bar_ms = rules.skew_max_ms ? *rules.skew_max_ms : 0.05 * j.step_p50_ms;
  // A slow link first (its groups were slower than the same transfers
  // elsewhere), then a late arrival (the others waited for it). A slow link
  // also makes its pipeline partners late at their next collective (they
  // waited on its sends, which the waits leave out): judged first, lateness
  // blamed a healthy partner of a link shaped to 150 Mbit/s (lab, 1 run in
  // 5). A rank that computes slowly slows no group (slow_ms is the least
  // of its kinds), so it is still found by its lateness.
  for (const auto& [fig, cause] : {std::pair{&slow, WorkloadJudgement::kSlowTransfers},
                                   std::pair{&late, WorkloadJudgement::kLate}}) {
    const Standout o = cause == WorkloadJudgement::kLate ? StandsOut(*fig, node_of, noise_sigmas)
                                                         : SlowestNode(*fig, node_of, noise_sigmas);
    const bool leads = o.share >= 0.75 && o.median_ms > j.bar_ms;
    const bool stands = leads && o.median_ms > o.noise_ms;
    if (leads && !stands && j.undecided_rank < 0) j.undecided_rank = static_cast<int>(o.rank);
    if (cause == WorkloadJudgement::kLate || stands) {
      j.late_rank = static_cast<int>(o.rank);
      j.late_ms = o.median_ms;
      j.late_share = o.share;
      j.noise_ms = o.noise_ms;
      j.cause = cause;
    }
    if (stands) {
      j.straggler = true;
      j.undecided_rank = -1;
      return j;
    }
  }
  j.late_rank = -1;
  return j;
}

void AddWorkloadFindings(const WorkloadJudgement& j, const WorkloadRules& rules,
                         const std::vector<std::string>& rank_node, bool confirmed,
                         google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  // Steps too spread for the step's bars. A rank that stands out beyond
  // its own noise (JudgeSteps' margin test) is still named, as a WARN:
  // a noisy measurement never FAILs a node, and hiding a clear straggler
  // behind the step's jitter would call a slow link healthy.
  if (j.too_noisy) {
    AddFinding(findings, findings::kMeasurementTooNoisy.code, "workload",
               absl::StrFormat("step times vary by %.0f%% (coefficient of variation): too noisy "
                               "to judge the step's bars%s; run again on quiet nodes",
                               100 * j.step_cv,
                               j.straggler ? " (the rank named stands out beyond its own noise)"
                                           : " or name a late rank"));
    confirmed = false;
  }
  if (j.straggler) {
    const std::string node =
        j.late_rank < static_cast<int>(rank_node.size()) ? rank_node[j.late_rank] : "?";
    AddFinding(
        findings, findings::kWorkloadStraggler.code, confirmed ? v1::FAIL : v1::WARN,
        absl::StrCat(node, " rank ", j.late_rank),
        absl::StrCat(absl::StrFormat("rank %d on %s ", j.late_rank, node),
                     j.cause == WorkloadJudgement::kLate
                         ? absl::StrFormat("was the last to arrive in %.0f%% of the steps; the "
                                           "others waited %.2f ms for it per step",
                                           100 * j.late_share, j.late_ms)
                         : absl::StrFormat("had the slowest groups' transfers in %.0f%% of the "
                                           "steps, %.2f ms per step more than the next node's "
                                           "against the same transfers elsewhere (its link or NIC)",
                                           100 * j.late_share, j.late_ms),
                     absl::StrFormat(" (bar %.2f ms, noise %.2f ms)", j.bar_ms, j.noise_ms),
                     confirmed ? ", again when measured a second time" : ""));
  }
  if (j.too_noisy) return;
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
