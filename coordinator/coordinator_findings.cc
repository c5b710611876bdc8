#include "coordinator/coordinator_findings.h"

namespace nodeprobe {

std::vector<FindingCode> CoordinatorFindings() {
  return {findings::kAgentLost,          findings::kCoordinatorRestarted,
          findings::kCoordinatorLost,    findings::kStoreWriteFailed,
          findings::kRunCancelled,       findings::kNcclBusbwBelowPeers,
          findings::kTransferBelowPeers, findings::kMeasurementTooNoisy,
          findings::kTransferAsymmetric, findings::kNothingMeasured,
          findings::kRailNotMeasured};
}

}  // namespace nodeprobe
