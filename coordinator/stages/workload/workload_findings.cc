#include "coordinator/stages/workload/workload_findings.h"

namespace nodeprobe {

std::vector<FindingCode> WorkloadFindings() {
  return {findings::kWorkloadStraggler, findings::kWorkloadStepSlow, findings::kWorkloadStepJitter,
          findings::kWorkloadCommBound, findings::kWorkloadNotRun,   findings::kWorkloadBurstStalls,
          findings::kWorkloadSlowSubset};
}

}  // namespace nodeprobe
