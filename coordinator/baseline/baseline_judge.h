// A finished run's figures judged against what each node's class measured
// in earlier accepted runs (figures.h, baseline.h), when the profile asks
// (baseline.use): REGRESSED_FROM_BASELINE names the figure, the class, the
// baseline's median and n, and the node's previous value; a class with too
// few runs says so once (BASELINE_TOO_FEW_RUNS), never judged on a few.
#pragma once

#include <vector>

#include "coordinator/baseline/baseline_profile.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::baseline {

// `history`: earlier runs (accepted or not; only accepted ones count).
void JudgeAgainstBaselines(v1::StageRun* run, const std::vector<v1::StageRun>& history,
                           const BaselineRules& rules);

}  // namespace nodeprobe::baseline
