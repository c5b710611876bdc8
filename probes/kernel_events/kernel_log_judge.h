// File: kernel_log_judge.h
// Findings from the hardware events of a kernel log (kernel_log.h), one per
// device and kind, with the count, the first occurrence and what to do:
//   GPU_XID               an NVIDIA Xid: the Xid table's severity
//                         (xid_catalog.h: FAIL for hardware, WARN for the
//                         application's own faults)
//   GPU_FELL_OFF_BUS      the GPU left the PCIe bus (Xid 79 or the NVRM
//                         line): FAIL
//   GPU_RESET_REQUIRED    an Xid whose state lasts until a GPU reset, or
//                         the driver said so: FAIL
//   NVSWITCH_SXID         an NVSwitch SXid: WARN
//   PCIE_AER_UNCORRECTED  uncorrected (non-fatal or fatal) PCIe errors: FAIL
//   PCIE_AER_CORRECTED    corrected PCIe errors, with their bits (RxErr,
//                         BadTLP, BadDLLP, Timeout...), when a device's
//                         rate (count over the span from its first to its
//                         last, at least a second) passes
//                         faults.aer_corrected_max_per_hour: WARN. A few
//                         spread over days are a measurement, not a finding
//   RDMA_LINK_FLAPPED     a NIC's link went down (and whether it came back):
//                         WARN
// A log without lines is SKIP; one without events PASS.
#pragma once

#include "nodeprobe/v1/result.pb.h"
#include "probes/kernel_events/faults_profile.h"
#include "probes/kernel_events/kernel_log.h"

namespace nodeprobe::kernel {

// probe "kernel-log", detail.kernel_log; verdict left to FinalizeResult.
v1::ProbeResult JudgeKernelLog(const KernelLogReader& reader,
                               const FaultRules& rules = FaultRules());

}  // namespace nodeprobe::kernel
