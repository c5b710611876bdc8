// Findings from the hardware events of a kernel log (kernel_log.h), one per
// device and kind, with the count, the first occurrence and what to do:
// GPU Xids (the Xid table's severity, xid_catalog.h), a GPU off the bus or
// needing a reset, NVSwitch SXids, PCIe AER (corrected ones only past
// faults.aer_corrected_max_per_hour: a few spread over days are a
// measurement), NIC link flaps and port module events. The codes and their
// severities are declared in kernel_events_findings.h.
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
