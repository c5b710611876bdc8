// A finished run's figures judged against what each node's class measured
// in earlier accepted runs (figures.h, baseline.h), when the profile asks
// (baseline.use): REGRESSED_FROM_BASELINE names the figure, the class, the
// baseline's median and n, and the node's previous value; a class with too
// few runs says so once (BASELINE_TOO_FEW_RUNS), never judged on a few.
#pragma once

#include <string>
#include <vector>

#include "coordinator/baseline/baseline_profile.h"
#include "coordinator/baseline/figures.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::baseline {

// `history`: earlier runs (accepted or not; only accepted ones count).
// `marks`: what operators pinned and forgot (figures.h).
void JudgeAgainstBaselines(v1::StageRun* run, const std::vector<v1::StageRun>& history,
                           const BaselineRules& rules, const Marks& marks = {});

// Per node and figure of `run`: its value over its class's baseline median
// in `history`, for classes with at least `min_runs` accepted runs (what
// the coordinator's /metrics exports, so an alert can fire on a drift
// before it is a regression).
struct BaselineRatio {
  std::string node;
  std::string figure;
  double ratio = 0;
};
std::vector<BaselineRatio> RatiosToBaselines(const v1::StageRun& run,
                                             const std::vector<v1::StageRun>& history,
                                             size_t min_runs, const Marks& marks = {});

}  // namespace nodeprobe::baseline
