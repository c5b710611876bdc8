#include "probes/transfer/transfer_findings.h"

namespace nodeprobe {

std::vector<FindingCode> TransferFindings() {
  return {findings::kTransferConnectFailed, findings::kTransferPeerLost,
          findings::kTransferTimeout,       findings::kTransferRefused,
          findings::kTransferNoRdmaDevice,  findings::kTransferGpuNotUsable,
          findings::kTransferBelowExpected, findings::kLatencyAboveExpected,
          findings::kRdmaCongestionSignals, findings::kNetdevErrorsGrew,
          findings::kNetdevPauseFrames,     findings::kClockReadSlow};
}

}  // namespace nodeprobe
