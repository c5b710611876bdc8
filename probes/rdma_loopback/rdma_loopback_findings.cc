#include "probes/rdma_loopback/rdma_loopback_findings.h"

namespace nodeprobe {

std::vector<FindingCode> RdmaLoopbackFindings() { return {findings::kRdmaLoopbackFailed}; }

}  // namespace nodeprobe
