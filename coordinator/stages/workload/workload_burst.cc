#include "coordinator/stages/workload/workload_burst.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "coordinator/stages/workload/workload_findings.h"
#include "platform/statistics.h"
#include "probes/framework/result_util.h"
#include "probes/storage/storage_profile.h"
#include "probes/workload/workload_profile.h"

namespace nodeprobe::coordinator {

absl::StatusOr<v1::WorkloadBurst> BurstOf(const v1::RunStageRequest& request,
                                          const Profile& profile) {
  v1::WorkloadBurst b = request.workload_burst();
  if (b.kind().empty()) return b;
  if (request.stage() != v1::WORKLOAD) {
    return absl::InvalidArgumentError(
        "--burst is an option of the workload stage: run it with --stage workload");
  }
  if (b.kind() != "storage" && b.kind() != "east-west" && b.kind() != "competing") {
    return absl::InvalidArgumentError(
        absl::StrCat("--burst '", b.kind(), "' is not one of storage, east-west, competing"));
  }
  const int steps = profile.Section<WorkloadRules>().Shape().steps;
  if (b.steps() == 0) b.set_steps(static_cast<uint32_t>(std::max(1, steps / 3)));
  if (b.at_step() == 0) {
    b.set_at_step(static_cast<uint32_t>(std::max(1, (steps - static_cast<int>(b.steps())) / 2)));
  }
  if (b.at_step() < 1 || b.at_step() + b.steps() >= static_cast<uint32_t>(steps)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--burst-at ", b.at_step(), " with --burst-steps ", b.steps(), " leaves no measured step ",
        b.at_step() < 1 ? "before" : "after", " the burst of the ", steps,
        " (workload.steps): raise workload.steps or move the window"));
  }
  if (b.kind() == "storage") {
    const std::vector<std::string>& paths = profile.Section<StorageRules>().paths;
    if (paths.empty()) {
      return absl::InvalidArgumentError(
          "--burst storage needs the checkpoint path in the profile (storage.paths; the first "
          "is written)");
    }
    b.set_path(paths.front());
  }
  return b;
}

std::vector<StepTimes> QuietSteps(const std::vector<StepTimes>& steps,
                                  const v1::WorkloadBurst& burst) {
  if (burst.kind().empty()) return steps;
  std::vector<StepTimes> out;
  for (size_t s = 0; s < steps.size(); ++s) {
    if (s < burst.at_step() || s >= burst.at_step() + burst.steps()) out.push_back(steps[s]);
  }
  return out;
}

namespace {

void Phase(const std::string& name, size_t from, size_t to, const std::vector<StepTimes>& steps,
           double before_p99, v1::WorkloadReport::Phase* out) {
  std::vector<double> step, exposed;
  for (size_t s = from; s < to && s < steps.size(); ++s) {
    step.push_back(*std::max_element(steps[s].step_ms.begin(), steps[s].step_ms.end()));
    exposed.push_back(*std::max_element(steps[s].exposed_ms.begin(), steps[s].exposed_ms.end()));
  }
  out->set_name(name);
  out->set_first_step(static_cast<uint32_t>(from));
  out->set_steps(static_cast<uint32_t>(step.size()));
  if (step.empty()) return;
  out->set_step_p50_ms(stats::Percentile(step, 0.5));
  out->set_step_p99_ms(stats::Percentile(step, 0.99));
  out->set_step_max_ms(*std::max_element(step.begin(), step.end()));
  out->set_exposed_p99_ms(stats::Percentile(exposed, 0.99));
  out->set_slowdown(before_p99 > 0 ? out->step_p99_ms() / before_p99 : 1.0);
}

}  // namespace

void JudgeBurst(const v1::WorkloadBurst& burst, const std::vector<StepTimes>& steps,
                double slowdown_max, v1::WorkloadReport* report,
                google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (burst.kind().empty() || steps.empty()) return;
  *report->mutable_burst() = burst;
  const size_t at = burst.at_step(), end = at + burst.steps();
  v1::WorkloadReport::Phase* before = report->add_phases();
  Phase("before", 0, at, steps, 0, before);
  const double base = before->step_p99_ms();
  before->set_slowdown(1.0);
  v1::WorkloadReport::Phase* during = report->add_phases();
  Phase("during", at, end, steps, base, during);
  Phase("after", end, steps.size(), steps, base, report->add_phases());
  if (during->slowdown() <= slowdown_max) return;
  const v1::WorkloadReport::Phase& after = report->phases(2);
  AddFinding(
      findings, findings::kWorkloadBurstStalls.code, "workload",
      absl::StrFormat(
          "the %s burst slowed the step's p99 %.2fx (%.1f ms during it, %.1f ms before; "
          "exposed communication p99 %.1f ms against %.1f), above workload.burst_slowdown_max "
          "%.2f; after it the p99 was %.1f ms (%.2fx). RDMA congestion counters (PFC pause, ECN, "
          "CNP) are not read by this stage yet: compare the nodes' counters over the run",
          burst.kind(), during->slowdown(), during->step_p99_ms(), base, during->exposed_p99_ms(),
          report->phases(0).exposed_p99_ms(), slowdown_max, after.step_p99_ms(), after.slowdown()));
}

}  // namespace nodeprobe::coordinator
