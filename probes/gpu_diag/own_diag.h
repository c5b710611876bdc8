// File: own_diag.h
// gpu-diag's own tests, on every GPU CUDA sees, one GPU at a time (so each
// has the host's copy engines and power to itself): the memory pattern
// test over most of its free memory, HBM bandwidth (triad) and a bf16 GEMM
// through cuBLAS (platform/gpu_stress.h), while NVML is sampled for clocks,
// power, temperature and throttle reasons. Then judged (JudgeOwnDiag):
//   GPU_MEMORY_TEST_ERRORS    words read back wrong (FAIL)
//   GPU_HBM_BANDWIDTH_LOW     triad below gpu_diag.hbm_min_fraction of
//                             NVML's memory clock x 2 x bus width (FAIL)
//   GPU_GEMM_BELOW_EXPECTED   below gpu_diag.gemm_min_fraction of the
//                             model's datasheet peak (gemm_peaks.h), or
//                             gpu_diag.gemm_min_tflops (WARN: clocks,
//                             power caps and the cuBLAS version move it)
//   GPU_THROTTLED_UNDER_LOAD  a thermal or power fault held the clocks
//                             down during the load (WARN)
//   GPU_DIAG_NOT_RUN          a test could not run on a GPU that is there
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/gpu_stress.h"
#include "probes/gpu_diag/gpu_diag_profile.h"

namespace nodeprobe::gpu_diag {

// What NVML showed while a GPU was loaded.
struct LoadTelemetry {
  int samples = 0;
  uint32_t max_temperature_c = 0;
  uint32_t max_power_mw = 0;
  uint32_t min_sm_clock_mhz = 0;             // 0: not reported
  std::vector<std::string> fault_throttles;  // "hw_thermal_slowdown", ...
};

struct OwnDiagGpu {
  std::string bus_id;  // 0000:19:00.0
  std::string name;    // NVML's ("NVIDIA H100 80GB HBM3"), "" without NVML
  std::string error;   // the GPU could not be opened for the tests
  bool memory_ran = false;
  platform::MemoryTestResult memory;
  double triad_gbps = 0;            // 0: not measured
  double hbm_theoretical_gbps = 0;  // 0: NVML did not say
  bool gemm_ran = false;
  platform::GemmResult gemm;
  std::vector<std::string> test_errors;  // "triad: ...", one per test that failed to run
  LoadTelemetry load;
};

// FAILED_PRECONDITION (the SKIP's reason) when there is no driver or no GPU.
absl::StatusOr<std::vector<OwnDiagGpu>> RunOwnDiag(std::string_view image,
                                                   const GpuDiagRules& rules, absl::Time deadline);

void JudgeOwnDiag(const std::vector<OwnDiagGpu>& gpus, const GpuDiagRules& rules,
                  v1::ProbeResult* result);

}  // namespace nodeprobe::gpu_diag
