// The workload stage's record (v1::WorkloadReport): the shape and where it
// ran, the judged figures, the per-step chart, the per-rank wait heatmap
// and each kind of op's median time.
#pragma once

#include <string>
#include <vector>

#include "coordinator/stages/workload/workload_judge.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/workload/replay_report.h"
#include "probes/workload/step_program.h"

namespace nodeprobe::coordinator {

// "tp 2 x pp 2 x dp 2 = 8 ranks, 2 per node"
std::string LayoutOf(const workload::Placement& placement);

v1::WorkloadReport RecordOf(const workload::WorkloadShape& shape,
                            const workload::Placement& placement,
                            const std::vector<std::string>& rank_nodes,
                            const std::vector<std::vector<workload::Op>>& programs,
                            const std::vector<workload::ReplayReport>& reports,
                            const std::vector<StepTimes>& steps, const WorkloadJudgement& j);

}  // namespace nodeprobe::coordinator
