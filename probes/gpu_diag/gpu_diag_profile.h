// File: gpu_diag_profile.h
// The profile's `gpu_diag:` section (gpu_diag_probe.h).
//   gpu_diag:
//     level: 2               # dcgmi diag -r LEVEL: 1 seconds, 2 minutes, 3 ~30 min, 4 hours
//     memory_fraction: 0.9   # of each GPU's free memory the pattern test covers
//     memory_passes: 1
//     hbm_min_fraction: 0.7  # triad GB/s against NVML's memory clock x bus width
//     gemm_n: 8192           # the square bf16 GEMM's size
//     gemm_min_fraction: 0.5 # of the model's datasheet dense bf16 peak
//     gemm_min_tflops: 600   # instead of the table (models it does not know)
#pragma once

namespace nodeprobe {

struct Profile;

struct GpuDiagRules {
  static constexpr char kSection[] = "gpu_diag";  // its top-level key
  int level = 2;
  double memory_fraction = 0.9;
  int memory_passes = 1;
  double hbm_min_fraction = 0.7;
  int gemm_n = 8192;
  double gemm_min_fraction = 0.5;
  double gemm_min_tflops = 0;  // 0: the model's table figure x gemm_min_fraction
};

}  // namespace nodeprobe
