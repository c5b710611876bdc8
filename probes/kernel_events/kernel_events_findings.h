// File: kernel_events_findings.h
// The finding codes the kernel-events probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; kernel_events_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuXid = {
    "GPU_XID",
    kVaries,
    "kernel-log",
    "the NVIDIA driver logged an Xid for a GPU",
    "follow the action the message names (NVIDIA's Xid catalog): restart the application "
    "for its own faults; reset the GPU (nvidia-smi -r) or reboot and drain for hardware "
    "ones, and open a support case when it repeats",
    "the Xid table's severity (probes/kernel_events/xid_catalog.cc): FAIL for hardware "
    "and driver state (ECC DBE, row-remap failure, NVLink, GSP, off the bus), WARN for "
    "application faults"};
inline constexpr FindingCode kGpuFellOffBus = {
    "GPU_FELL_OFF_BUS", v1::FAIL, "kernel-log", "a GPU left the PCIe bus",
    "drain the node; reseat or replace the GPU or riser, check its power and the PCIe slot "
    "(AER lines around it), then reboot"};
inline constexpr FindingCode kGpuResetRequired = {
    "GPU_RESET_REQUIRED", v1::FAIL, "kernel-log",
    "a GPU is in a state that lasts until it is reset",
    "drain the node's jobs, reset the GPU (nvidia-smi -r -i N) or reboot, then rerun the "
    "single-node stage"};
inline constexpr FindingCode kNvswitchSxid = {
    "NVSWITCH_SXID",
    kVaries,
    "kernel-log",
    "an NVSwitch logged an SXid",
    "look the SXid up in NVIDIA's catalog; fatal ones need the fabric manager restarted "
    "and the node's GPUs reset",
    "FAIL for a Fatal SXid, WARN otherwise"};
inline constexpr FindingCode kNicModuleEvent = {
    "NIC_MODULE_EVENT", v1::WARN, "kernel-log",
    "a NIC's transceiver module reported trouble (unplugged, power budget exceeded, an "
    "unrecognized or bad cable, high temperature)",
    "check the cable and transceiver the message names (seated, supported, within the "
    "port's power class), then `mlxlink -d DEV -m` for the module's state"};
inline constexpr FindingCode kPcieAerUncorrected = {
    "PCIE_AER_UNCORRECTED", v1::FAIL, "kernel-log",
    "a PCIe device reported an uncorrected (non-fatal or fatal) error",
    "drain the node; the device or its slot/riser/cable is failing: reseat, then replace; "
    "check `lspci -vvv` for the link and the AER status"};
inline constexpr FindingCode kPcieAerCorrected = {
    "PCIE_AER_CORRECTED", v1::WARN, "kernel-log",
    "a PCIe link corrected errors (RxErr, BadTLP, BadDLLP, replay timeouts)",
    "a marginal link: reseat the device or riser, check the link's width and speed "
    "(`nodeprobe run --probe pcie`); a growing count precedes downtraining"};
inline constexpr FindingCode kRdmaLinkFlapped = {
    "RDMA_LINK_FLAPPED", v1::WARN, "kernel-log", "a NIC's link went down",
    "check the cable/optics and the switch port's error counters; a link that flaps "
    "stalls every collective using that rail"};

}  // namespace nodeprobe::findings
