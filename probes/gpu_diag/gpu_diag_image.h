// File: gpu_diag_image.h
// gpu-diag's kernels as built by nvcc (kernels/gpu_diag_kernels.cu, this
// folder's CMakeLists): a fatbin with SASS for sm_80 and sm_90 and PTX for
// compute_75 (JIT-compiled by the driver for any newer GPU). Empty when
// nvcc was not found at build time.
#pragma once

#include <string_view>

namespace nodeprobe::gpu_diag {

std::string_view KernelImage();

}  // namespace nodeprobe::gpu_diag
