#include "coordinator/stages/failure/failure_findings.h"

namespace nodeprobe {

std::vector<FindingCode> FailureStageFindings() {
  return {findings::kFailureNotRecovered, findings::kFailureHung};
}

}  // namespace nodeprobe
