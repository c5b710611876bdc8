// File: stage_runner.h
// Runs a list of probes for one node and assembles the StageReport: a probe
// that could not run becomes an ERROR result (never a missing row), profile
// exceptions are applied in this one place, and verdicts are derived from
// findings here rather than by each probe.
#pragma once

#include <functional>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

// Called before each probe starts: (index from 1, total, probe name).
using ProgressFn = std::function<void(int, int, std::string_view)>;

v1::StageReport RunProbes(v1::Stage stage, const std::vector<Probe*>& probes,
                          const ProbeContext& ctx,
                          const ProgressFn& progress = nullptr);

// Downgrades FAIL findings covered by a profile exception to WARN, keeping
// the reason, then derives the verdict (unless the probe chose SKIP).
void FinalizeResult(const Profile& profile, v1::ProbeResult* result);

}  // namespace nodeprobe
