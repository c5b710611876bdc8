// File: rdma_exposure_findings.h
// The finding codes the rdma-exposure probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; rdma_exposure_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kRdmaDeviceNotVisible = {
    "RDMA_DEVICE_NOT_VISIBLE", v1::FAIL, "rdma-exposure",
    "the job expects RDMA and no RDMA device is usable from inside its container or VM",
    "give the pod the RDMA device plugin's resource (rdma/...) or the SR-IOV VF, expose "
    "/dev/infiniband to the container, set `rdma system set netns shared` or move the device "
    "into the pod's namespace, and give its interface an address (RoCE v2 GIDs need one)"};
inline constexpr FindingCode kRdmaPkeyMissing = {
    "RDMA_PKEY_MISSING", v1::FAIL, "rdma-exposure",
    "an InfiniBand port visible to the job does not hold the profile's partition key "
    "(preflight.pkey)",
    "add the port's GUID to the partition in the subnet manager (partitions.conf), or give the "
    "pod a VF whose PKey table the SR-IOV network sets to it"};

}  // namespace nodeprobe::findings
