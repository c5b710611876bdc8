// File: gemm_peaks.h
// Dense bf16 tensor-core peaks by GPU model, the GEMM test's reference.
// Figures are NVIDIA's datasheets' (H100 Tensor Core GPU datasheet, 2023;
// H200 datasheet, 2024; A100 datasheet, 2021; L40S and L4 datasheets, 2023;
// DGX B200 datasheet, 2024), which quote "with sparsity": the dense figure
// is half. A datasheet peak is at boost clock and is not reached by any
// real GEMM (cuBLAS gets roughly 65-80% of it on H100 SXM), hence the
// gpu_diag.gemm_min_fraction below it.
#pragma once

#include <string>

namespace nodeprobe::gpu_diag {

struct GemmPeak {
  double tflops = 0;  // 0: the model is not in the table
  std::string model;  // the table's row that matched
};

// The row whose model the NVML name contains, the more specific first
// ("H100 PCIe" before "H100").
GemmPeak GemmPeakOf(const std::string& nvml_name);

}  // namespace nodeprobe::gpu_diag
