// File: gpu_view_findings.h
// The finding codes the gpu-view probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; gpu_view_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuGrantNotVisible = {
    "GPU_GRANT_NOT_VISIBLE", v1::FAIL, "gpu-view",
    "the job was granted more GPUs than it can see here, or CUDA_VISIBLE_DEVICES names GPUs "
    "that are not there",
    "expose the granted GPUs to the container (NVIDIA_VISIBLE_DEVICES, the device plugin, "
    "Slurm's gres.conf and cgroup ConstrainDevices) and let CUDA_VISIBLE_DEVICES name only "
    "them"};
inline constexpr FindingCode kGpuGrantExceeded = {
    "GPU_GRANT_EXCEEDED", v1::WARN, "gpu-view",
    "the job sees more GPUs than it was granted: it may run on GPUs other jobs hold",
    "constrain the devices (Slurm: ConstrainDevices=yes in cgroup.conf; Kubernetes: the "
    "device plugin, not privileged pods) or set CUDA_VISIBLE_DEVICES to the grant"};
inline constexpr FindingCode kGpuNearestNicNotVisible = {
    "GPU_NEAREST_NIC_NOT_VISIBLE", v1::WARN, "gpu-view",
    "a GPU's nearest RDMA NIC on this host is not visible to the job: its traffic crosses to "
    "a farther NIC",
    "give the pod the NIC (or VF) on each GPU's rail: topology-aware device allocation, one "
    "rdma/... resource per GPU's NUMA node"};
inline constexpr FindingCode kNcclGdrLevelExcludesNic = {
    "NCCL_GDR_LEVEL_EXCLUDES_NIC", v1::WARN, "gpu-view",
    "NCCL_NET_GDR_LEVEL is stricter than the path from a GPU to its nearest visible NIC: "
    "GPUDirect RDMA will be off for it",
    "unset NCCL_NET_GDR_LEVEL (NCCL picks by topology) or give the GPU a nearer NIC"};

}  // namespace nodeprobe::findings
