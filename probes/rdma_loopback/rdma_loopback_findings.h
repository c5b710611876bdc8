// File: rdma_loopback_findings.h
// The finding codes the rdma-loopback probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; rdma_loopback_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kRdmaLoopbackFailed = {
    "RDMA_LOOPBACK_FAILED", v1::FAIL, "rdma-loopback",
    "a transfer through an ACTIVE port to itself failed",
    "check the port's state and GIDs (rdma-devices probe), that its netdev is up, the HCA "
    "firmware and the driver's messages in the kernel log; with GPU memory, GPUDirect RDMA too"
    " (the gpudirect probe: nvidia_peermem or dma-buf, ACS, the IOMMU)"};

}  // namespace nodeprobe::findings
