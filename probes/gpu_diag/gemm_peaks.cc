#include "probes/gpu_diag/gemm_peaks.h"

namespace nodeprobe::gpu_diag {
namespace {

struct Row {
  const char* contains;
  double dense_bf16_tflops;
};
// Ordered: a row's key must not be matched by a less specific one above it.
constexpr Row kRows[] = {
    {"H100 PCIe", 756}, {"H100 NVL", 835}, {"H100", 989.4}, {"H200 NVL", 835}, {"H200", 989.4},
    {"A100", 312},      {"L40S", 362},     {"L40", 181},    {"L4", 121},       {"B200", 2250},
};

}  // namespace

GemmPeak GemmPeakOf(const std::string& nvml_name) {
  for (const Row& r : kRows) {
    if (nvml_name.find(r.contains) != std::string::npos) return {r.dense_bf16_tflops, r.contains};
  }
  return {};
}

}  // namespace nodeprobe::gpu_diag
