// File: nccl_env_findings.h
// The finding codes the nccl-env probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; nccl_env_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kNcclEnvIgnored = {
    "NCCL_ENV_IGNORED", v1::WARN, "nccl-env",
    "an NCCL_* level variable has a value NCCL does not read, so NCCL keeps its default",
    "use a level NCCL knows (LOC, NVL, NVB, C2C, PIX, PXB, PXN, P2C, PHB, SYS) or a number"};
inline constexpr FindingCode kNcclSocketLoopbackOnly = {
    "NCCL_SOCKET_LOOPBACK_ONLY", v1::WARN, "nccl-env",
    "NCCL_SOCKET_IFNAME leaves only loopback: ranks on other nodes cannot reach this one",
    "name the interface of the job's network (e.g. NCCL_SOCKET_IFNAME=eth0, or ^lo,docker)"};
inline constexpr FindingCode kNcclEnvInvalid = {
    "NCCL_ENV_INVALID", v1::FAIL, "nccl-env",
    "an NCCL_* variable names devices, interfaces, GIDs or files this container does not "
    "have, or a value NCCL does not take",
    "fix the variable in the job's environment to what the message lists as present, or "
    "expose the device or interface to the container (RDMA device plugin, Multus network, "
    "a mounted topology file)"};

}  // namespace nodeprobe::findings
