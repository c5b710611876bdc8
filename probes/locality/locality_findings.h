// File: locality_findings.h
// The finding codes the locality probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; locality_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuNicNotLocal = {
    "GPU_NIC_NOT_LOCAL",
    kVaries,
    "locality",
    "a GPU's nearest NIC is not under its PCIe switch",
    "put the GPU and a NIC under the same PCIe switch (see the server's slot map), or accept "
    "it in the profile if this node is not rail-optimized",
    "FAIL when the profile says the node is rail-optimized (locality.rail_optimized), else "
    "WARN"};
inline constexpr FindingCode kGpuNicNumaMismatch = {
    "GPU_NIC_NUMA_MISMATCH", v1::WARN, "locality",
    "a GPU and its nearest NIC are on different NUMA nodes",
    "bind the rank to the NIC's NUMA node, or move the NIC"};
inline constexpr FindingCode kNicSharedByGpus = {
    "NIC_SHARED_BY_GPUS", v1::PASS, "locality", "several GPUs share one nearest NIC",
    "nothing to fix: expected on nodes with fewer NICs than GPUs; size collective bandwidth "
    "expectations per NIC, not per GPU"};
inline constexpr FindingCode kNoRdmaNicForGpu = {
    "NO_RDMA_NIC_FOR_GPU",
    kVaries,
    "locality",
    "a GPU has no RDMA NIC at all",
    "install RDMA NICs (InfiniBand/RoCE) and their driver, or check that the RDMA driver is "
    "loaded (rdma link)",
    "FAIL when the profile says the node is rail-optimized (locality.rail_optimized), else "
    "WARN"};
inline constexpr FindingCode kNcclTopoFileMismatch = {
    "NCCL_TOPO_FILE_MISMATCH",
    kVaries,
    "locality, gpu-view",
    "NCCL_TOPO_FILE pairs GPUs and NICs unlike this node",
    "regenerate the file on this node type (NCCL_TOPO_DUMP_FILE) or unset NCCL_TOPO_FILE",
    "FAIL; ERROR when the file does not parse (NCCL fails on it too)"};
inline constexpr FindingCode kPcieVmLinkArtifact = {
    "PCIE_VM_LINK_ARTIFACT", v1::PASS, "locality",
    "an emulated bridge's link speed/width (virtual machine), not a fault",
    "nothing to fix: judge the GPU and NIC links on the host, not in the guest"};
inline constexpr FindingCode kGpuIndexMismatch = {
    "GPU_INDEX_MISMATCH", v1::WARN, "locality",
    "a GPU's NVML index in the topology is not its PCI-order index",
    "identify GPUs by bus id (nvidia-smi -q), not by index"};

}  // namespace nodeprobe::findings
