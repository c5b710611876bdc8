#include "probes/rdma_devices/rdma_devices_findings.h"

namespace nodeprobe {

std::vector<FindingCode> RdmaDevicesFindings() {
  return {findings::kRdmaPortDown,
          findings::kRdmaDriverNotBound,
          findings::kRdmaRateBelowExpected,
          findings::kRdmaLinkLayerUnexpected,
          findings::kRdmaCountersUnreadable,
          findings::kRdmaErrorCountersNonzero,
          findings::kRdmaVerbsQueryFailed,
          findings::kIbNoSubnetManager,
          findings::kRoceNoV2Gid,
          findings::kRoceGidTypeUnknown};
}

}  // namespace nodeprobe
