#include "probes/rdma_exposure/rdma_exposure_findings.h"

namespace nodeprobe {

std::vector<FindingCode> RdmaExposureFindings() {
  return {findings::kRdmaDeviceNotVisible, findings::kRdmaPkeyMissing};
}

}  // namespace nodeprobe
