// File: gpu_diag_findings.h
// The finding codes the gpu-diag probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; gpu_diag_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kGpuDiagFailed = {
    "GPU_DIAG_FAILED", v1::FAIL, "gpu-diag",
    "a GPU failed an active diagnostic (dcgmi diag), or DCGM's deployment checks found an "
    "error",
    "follow the test's warning: reset the GPU or reboot for memory/row-remap errors and "
    "rerun; check cooling for thermal violations; drain and RMA a GPU that fails again"};
inline constexpr FindingCode kGpuDiagWarned = {
    "GPU_DIAG_WARNED", v1::WARN, "gpu-diag", "a GPU's active diagnostic ended with a warning",
    "read the test's warning (dcgmi diag's table) and rerun at a higher level "
    "(gpu_diag.level) before taking the GPU into production"};
inline constexpr FindingCode kGpuDiagNotRun = {
    "GPU_DIAG_NOT_RUN", v1::ERROR, "gpu-diag",
    "dcgmi diag, or one of nodeprobe's own GPU tests, did not run to the end",
    "check that nv-hostengine runs (systemctl status nvidia-dcgm), that no other diagnostic "
    "or job holds the GPUs, that the driver is at least as new as the CUDA nodeprobe was "
    "built with, and that the stage's --timeout covers the tests"};
inline constexpr FindingCode kGpuMemoryTestErrors = {
    "GPU_MEMORY_TEST_ERRORS", v1::FAIL, "gpu-diag",
    "GPU memory read back other than what was written (nodeprobe's pattern test)",
    "check `nvidia-smi -q -d ECC,ROW_REMAPPER` and the kernel log for Xid 48/63/64/94/95; "
    "reset the GPU and test again; a GPU that fails again goes to RMA"};
inline constexpr FindingCode kGpuHbmBandwidthLow = {
    "GPU_HBM_BANDWIDTH_LOW", v1::FAIL, "gpu-diag",
    "a GPU's memory bandwidth (triad) is far below what its memory clock and bus width allow",
    "check `nvidia-smi -q -d CLOCK,PERFORMANCE` for a lowered memory clock or a throttle "
    "reason, and that nothing else runs on the GPU; reset it and test again, then RMA"};
inline constexpr FindingCode kGpuGemmBelowExpected = {
    "GPU_GEMM_BELOW_EXPECTED", v1::WARN, "gpu-diag",
    "a GPU's GEMM throughput (cuBLAS, bf16) is below the bar for its model",
    "check power limits (`nvidia-smi -q -d POWER`), application clocks, cooling and throttle "
    "reasons; compare with the other GPUs of the node"};
inline constexpr FindingCode kGpuThrottledUnderLoad = {
    "GPU_THROTTLED_UNDER_LOAD", v1::WARN, "gpu-diag",
    "a thermal or power fault held a GPU's clocks down while it was loaded",
    "check the GPU's cooling (fans, airflow, inlet temperature) and the power supply; a "
    "hw_slowdown or power brake under load is often a PSU or board fault"};

}  // namespace nodeprobe::findings
