#include "coordinator/stages/congestion/congestion_findings.h"

namespace nodeprobe {

std::vector<FindingCode> CongestionStageFindings() {
  return {findings::kCongestionAggregateBelowExpected, findings::kCongestionUnfair,
          findings::kCongestionLatency};
}

}  // namespace nodeprobe
