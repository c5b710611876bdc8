// File: fault_counters_findings.h
// The finding codes the fault-counters probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; fault_counters_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuNvlinkErrors = {
    "GPU_NVLINK_ERRORS", v1::WARN, "fault-counters",
    "an NVLink's replay and CRC errors grew faster than faults.nvlink_errors_max_per_hour "
    "since the last local reading, or the link retrained (recovery)",
    "reseat or replace the GPU baseboard's NVLink path (cable cartridge on HGX) when it "
    "persists; run the nccl probe and dcgmi diag -r 2 to see whether bandwidth suffers"};

}  // namespace nodeprobe::findings
