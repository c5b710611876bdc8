#include "probes/mtu/mtu_findings.h"

namespace nodeprobe {

std::vector<FindingCode> MtuFindings() {
  return {findings::kMtuChainMismatch,        findings::kMtuInterfaceMissing,
          findings::kMtuBelowExpected,        findings::kRoceMtuExceedsNetdev,
          findings::kMtuPathSmallerThanIface, findings::kMtuPathBlackhole,
          findings::kMtuPathUnreachable,      findings::kMtuPeersDiffer,
          findings::kRdmaMtuMismatch,         findings::kMtuProbeFailed,
          findings::kMtuProbeTimeout};
}

}  // namespace nodeprobe
