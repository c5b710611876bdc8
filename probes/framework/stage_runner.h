// File: stage_runner.h
// Runs a list of probes for one node and assembles the StageReport: a probe
// that could not run becomes an ERROR result (never a missing row), profile
// exceptions are applied in this one place, and verdicts are derived from
// findings here rather than by each probe.
#pragma once

#include <functional>
#include <vector>

#include "absl/time/clock.h"
#include "nodeprobe/v1/result.pb.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

// Called before each probe starts: (index from 1, total, probe name).
using ProgressFn = std::function<void(int, int, std::string_view)>;
// Called with each finished (finalized) result, so a worker can hand it on
// before the next probe starts and a later hang loses nothing.
using ResultFn = std::function<void(const v1::ProbeResult&)>;

v1::StageReport RunProbes(v1::Stage stage, const std::vector<Probe*>& probes,
                          const ProbeContext& ctx,
                          const ProgressFn& progress = nullptr,
                          const ResultFn& on_result = nullptr);

// The one place verdicts are made. Downgrades FAIL findings covered by a
// profile exception to WARN (the reason kept beside the finding), then sets
// the verdict from the findings: any FAIL is FAIL, any ERROR is ERROR, else
// WARN or PASS. A probe may only choose SKIP (nothing to judge here) when
// it holds no WARN/FAIL/ERROR finding, and ERROR (could not run), which a
// FAIL finding still outranks; it can never make a verdict better than its
// findings. An exception past its expiry at `now` is not applied; the
// finding records it (exception_expired, owner, expiry).
void FinalizeResult(const Profile& profile, v1::ProbeResult* result,
                    absl::Time now = absl::Now());

// A stage report's verdict (worst of its results) and coverage (how many
// were judged), from its results: wherever a report is assembled or its
// results change.
void FinalizeReport(v1::StageReport* report);

}  // namespace nodeprobe
