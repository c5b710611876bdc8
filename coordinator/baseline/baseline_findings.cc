#include "coordinator/baseline/baseline_findings.h"

#include <vector>

namespace nodeprobe {

std::vector<FindingCode> BaselineFindings() {
  return {findings::kRegressedFromBaseline, findings::kBaselineTooFewRuns,
          findings::kBaselineClassChanged};
}

}  // namespace nodeprobe
