// File: gpu_findings.h
// The finding codes the gpu probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; gpu_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuUnreadable = {
    "GPU_UNREADABLE", v1::FAIL, "gpu", "NVML cannot open a GPU (e.g. fallen off the bus)",
    "check dmesg for Xid errors; a lost GPU needs a node reboot or an RMA"};
inline constexpr FindingCode kGpuRowRemapFailed = {
    "GPU_ROW_REMAP_FAILED", v1::FAIL, "gpu", "a GPU ran out of spare memory rows",
    "the GPU's memory is worn out: drain the node and RMA the GPU"};
inline constexpr FindingCode kGpuRemapPending = {
    "GPU_REMAP_PENDING", v1::FAIL, "gpu",
    "a row remapping or page retirement waits for a GPU reset",
    "drain the node and reset the GPU (nvidia-smi -r) or reboot"};
inline constexpr FindingCode kGpuEccUncorrected = {
    "GPU_ECC_UNCORRECTED",
    kVaries,
    "gpu",
    "a GPU has uncorrected ECC errors",
    "volatile (since the last reset): drain the node, reset the GPU, and RMA it if they come "
    "back; aggregate only: watch the count, an RMA when it grows",
    "FAIL for volatile errors (since the last reset), WARN for the aggregate count alone"};
inline constexpr FindingCode kGpuEccDisabled = {
    "GPU_ECC_DISABLED", v1::WARN, "gpu", "a GPU supports ECC but runs without it",
    "enable it (nvidia-smi -e 1) and reboot, unless the fleet runs without ECC"};
inline constexpr FindingCode kGpuThrottled = {
    "GPU_THROTTLED", v1::WARN, "gpu", "a GPU's clocks are held down by a thermal or power fault",
    "check cooling, power delivery and the BMC's power brake"};
inline constexpr FindingCode kGpuNvlinkDown = {
    "GPU_NVLINK_DOWN",
    kVaries,
    "gpu",
    "NVLink links of a GPU are down",
    "some links down: check the NVSwitch fabric manager (nv-fabricmanager) and the baseboard, "
    "reset the GPU, RMA if it persists; all down: if this GPU should have NVLink, check its "
    "bridge or the fabric manager",
    "FAIL when some of the GPU's links are up and others down, WARN when all are down"};
inline constexpr FindingCode kGpuBusy = {"GPU_BUSY", v1::WARN, "gpu",
                                         "compute processes run on a GPU",
                                         "run acceptance on drained nodes"};
inline constexpr FindingCode kGpuPcieBwBelowExpected = {
    "GPU_PCIE_BW_BELOW_EXPECTED", v1::FAIL, "gpu-pcie-bw",
    "host<->GPU copies are slower than the GPU's PCIe link",
    "check the switch uplink and root port the GPU sits behind (the pcie probe), the IOMMU "
    "mode, and the CPU socket the copies ran from"};
inline constexpr FindingCode kGpuCopyFailed = {
    "GPU_COPY_FAILED", v1::ERROR, "gpu-pcie-bw", "a host<->GPU copy could not be measured",
    "check the driver (nvidia-smi) and dmesg for Xid errors"};

}  // namespace nodeprobe::findings
