// File: coordinator_findings.cc
#include "coordinator/coordinator_findings.h"

namespace nodeprobe {

std::vector<FindingCode> CoordinatorFindings() {
  return {findings::kAgentLost,
          findings::kCoordinatorRestarted,
          findings::kCoordinatorLost,
          findings::kStoreWriteFailed,
          findings::kRunCancelled,
          findings::kNcclBusbwBelowPeers,
          findings::kNcclNotRun,
          findings::kTransferBelowPeers,
          findings::kMeasurementTooNoisy,
          findings::kTransferAsymmetric,
          findings::kNothingMeasured,
          findings::kSuspectNode,
          findings::kSuspectRail,
          findings::kRailNotMeasured,
          findings::kSuspectLink,
          findings::kClusterIncomplete,
          findings::kCongestionAggregateBelowExpected,
          findings::kCongestionUnfair,
          findings::kCongestionLatency,
          findings::kStorageStormSlow,
          findings::kStorageStormLatency,
          findings::kFailureNotRecovered,
          findings::kFailureHung};
}

}  // namespace nodeprobe
