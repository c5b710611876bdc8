#include "probes/framework/stage_runner.h"

#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "nodeprobe_version.h"
#include "probes/framework/coverage.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe {
namespace {

// The busy-node guard: a SKIP for an intrusive probe that must not run
// here (a sweep keeps to non-intrusive probes; a busy node without
// --force), else nullopt. What keeps the node busy is asked once a stage,
// into *busy, when the first intrusive probe comes.
std::optional<v1::ProbeResult> HeldBack(const Probe& probe, const ProbeContext& ctx,
                                        std::optional<std::vector<std::string>>* busy) {
  if (!probe.intrusive()) return std::nullopt;
  if (ctx.skip_intrusive) {
    return SkipResult(probe.name(),
                      "intrusive: a sweep does not load the GPUs or the fabric (profile "
                      "guard.intrusive_in_sweep: true to run it)");
  }
  if (ctx.force || !ctx.what_keeps_busy) return std::nullopt;
  if (!busy->has_value()) *busy = ctx.what_keeps_busy();
  if ((*busy)->empty()) return std::nullopt;
  const std::string what = absl::StrJoin(**busy, "; ");
  v1::ProbeResult r = SkipResult(probe.name(), "NODE_BUSY: " + what);
  AddFinding(&r, findings::kNodeBusy.code, v1::SKIP, "", "not run: the node is busy: " + what);
  return r;
}

}  // namespace

void FinalizeResult(const Profile& profile, v1::ProbeResult* result, absl::Time now) {
  for (v1::Finding& f : *result->mutable_findings()) {
    if (f.severity() != v1::FAIL) continue;
    const ProfileException* e = profile.FindException(f.code(), f.device());
    if (e == nullptr) continue;
    f.set_exception_owner(e->owner);
    f.set_exception_expires(e->expires);
    if (e->ExpiredAt(now)) {
      // An acceptance record must not carry a waiver past its date.
      f.set_exception_expired(true);
      continue;
    }
    f.set_severity(v1::WARN);
    f.set_exception_reason(absl::StrCat(e->reason, " (exception in ", profile.source, ")"));
  }
  const v1::Verdict from_findings = VerdictFromFindings(*result);
  switch (result->verdict()) {
    case v1::SKIP:
      if (from_findings == v1::PASS) return;  // only informational findings
      break;
    case v1::ERROR:
      if (result->findings_size() == 0 ||
          std::none_of(result->findings().begin(), result->findings().end(),
                       [](const v1::Finding& f) { return f.severity() == v1::ERROR; })) {
        // An ERROR always says why, with a code a script can match.
        AddFinding(result, findings::kProbeCouldNotRun.code, "",
                   result->reason().empty() ? "the probe could not run" : result->reason());
      }
      result->set_verdict(WorseVerdict(v1::ERROR, from_findings));
      return;
    default:
      break;
  }
  result->set_verdict(from_findings);
}

void FinalizeReport(v1::StageReport* report) {
  report->set_verdict(CombineVerdicts(report->results()));
  *report->mutable_coverage() = CoverageOf(*report);
}

v1::StageReport RunProbes(v1::Stage stage, const std::vector<Probe*>& probes,
                          const ProbeContext& ctx,
                          const ProgressFn& progress, const ResultFn& on_result) {
  v1::StageReport report;
  report.set_stage(stage);
  report.set_node(ctx.node_name);
  report.set_nodeprobe_version(NODEPROBE_VERSION);
  *report.mutable_started() = StampOf(absl::Now());
  int index = 0;
  std::optional<std::vector<std::string>> busy;  // asked once, when first needed
  for (Probe* probe : probes) {
    ++index;
    if (progress) progress(index, static_cast<int>(probes.size()), probe->name());
    google::protobuf::Timestamp started = StampOf(absl::Now());
    v1::ProbeResult result;
    if (std::optional<v1::ProbeResult> held = HeldBack(*probe, ctx, &busy)) {
      result = *std::move(held);
    } else if (absl::Now() > ctx.deadline) {
      result.set_verdict(v1::ERROR);
      result.set_reason("stage deadline passed before this probe started");
      AddFinding(&result, findings::kProbeDeadlineExceeded.code, "", result.reason());
    } else {
      absl::StatusOr<v1::ProbeResult> run = probe->Run(ctx);
      if (run.ok()) {
        result = *std::move(run);
      } else {
        result = ErrorResult(probe->name(), findings::kProbeCouldNotRun.code,
                             std::string(run.status().message()));
      }
    }
    result.set_probe(std::string(probe->name()));
    result.set_node(ctx.node_name);
    *result.mutable_started() = started;
    *result.mutable_finished() = StampOf(absl::Now());
    FinalizeResult(*ctx.profile, &result);
    if (on_result) on_result(result);
    *report.add_results() = std::move(result);
  }
  *report.mutable_finished() = StampOf(absl::Now());
  FinalizeReport(&report);
  return report;
}

}  // namespace nodeprobe
