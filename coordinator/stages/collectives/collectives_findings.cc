#include "coordinator/stages/collectives/collectives_findings.h"

namespace nodeprobe {

std::vector<FindingCode> CollectivesStageFindings() { return {findings::kNcclNotRun}; }

}  // namespace nodeprobe
