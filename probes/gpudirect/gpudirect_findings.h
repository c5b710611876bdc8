// File: gpudirect_findings.h
// The finding codes the gpudirect probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; gpudirect_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGdrNotAvailable = {
    "GDR_NOT_AVAILABLE", v1::FAIL, "gpudirect",
    "neither dma-buf nor nvidia_peermem can register GPU memory",
    "load nvidia_peermem (modprobe nvidia_peermem), or use the open NVIDIA kernel module with "
    "kernel >= 5.12 and rdma-core >= 34 for dma-buf; check the HCA's driver and ulimit -l"};
inline constexpr FindingCode kAcsEnabledOnGpuNicPath = {
    "ACS_ENABLED_ON_GPU_NIC_PATH", v1::FAIL, "gpudirect",
    "ACS redirects peer-to-peer traffic between GPU and NIC",
    "disable ACS redirect on the bridge named in the message, in the BIOS or at boot with "
    "`setpci -s BRIDGE ECAP_ACS+0x6.w=0000` (bare metal only; keep it on for VMs that need "
    "isolation)"};
inline constexpr FindingCode kGdrStateNotCaptured = {
    "GDR_STATE_NOT_CAPTURED", v1::ERROR, "gpudirect",
    "the capture lacks what says whether GPUDirect RDMA is possible (sys/module, proc/): not "
    "judged",
    "capture the node's sys/module and proc/ too (or judge the live node)"};
inline constexpr FindingCode kAcsStateUnknown = {
    "ACS_STATE_UNKNOWN", v1::ERROR, "gpudirect", "the ACS control of a bridge could not be read",
    "run nodeprobe as root (reading PCI extended config space needs CAP_SYS_ADMIN); a capture:"
    " take the bridges' config files whole, as root (each sys/bus/pci/devices/*/config is 4096"
    " bytes then)"};
inline constexpr FindingCode kIommuTranslationEnabled = {
    "IOMMU_TRANSLATION_ENABLED", v1::WARN, "gpudirect",
    "the IOMMU translates DMA (costs GPUDirect bandwidth)",
    "boot with iommu=pt (and intel_iommu=on or amd_iommu=on as the platform needs) so GPU and "
    "NIC DMA pass through"};

}  // namespace nodeprobe::findings
