// File: gpu_stress.h
// Loads one GPU the way a training job does and says what it measured:
// gpu-diag's own memory test, HBM bandwidth and GEMM throughput, on the
// driver API (cuda_driver.h) with kernels from an image the caller gives
// (a fatbin or PTX built by nvcc: probes/gpu_diag/kernels/) and cuBLAS
// loaded with dlopen (libcublas; NODEPROBE_CUBLAS_LIBRARY names another, for
// tests). Only a worker process calls these: CUDA never loads in the agent.
// Every call leaves the GPU as it found it (its memory freed, the context
// released), whatever fails.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

struct MemoryTestResult {
  uint64_t bytes = 0;                        // tested, per pass
  int patterns = 0;                          // fills checked, over all passes
  uint64_t bad_words = 0;                    // 32-bit words that read back wrong, all patterns
  uint64_t first_bad_offset = 0;             // byte offset of the lowest bad word (when any)
  std::vector<std::string> failed_patterns;  // "0x55555555", "address^0x00000000"
  double seconds = 0;
};

struct GemmResult {
  int n = 0;  // m = n = k
  int iterations = 0;
  double tflops = 0;    // 2 n^3 x iterations / time, 10^12 per second
  std::string dtype;    // "bf16 in, fp32 accumulate"
  std::string library;  // the cuBLAS that ran it
};

// One GPU's context and our kernels, for the tests below.
class GpuStress {
 public:
  // FAILED_PRECONDITION without a driver, a GPU `ordinal`, or a loadable
  // image (the message says which, for the SKIP or ERROR it becomes).
  static absl::StatusOr<std::unique_ptr<GpuStress>> Open(int ordinal, std::string_view image);
  ~GpuStress();
  GpuStress(const GpuStress&) = delete;
  GpuStress& operator=(const GpuStress&) = delete;

  // Bytes free on the GPU now.
  absl::StatusOr<size_t> FreeBytes() const;
  // Writes and reads back constant and address-dependent patterns over
  // `bytes` of device memory (allocated once; a smaller size, down to half,
  // is tried when another process took some meanwhile), `passes` times.
  absl::StatusOr<MemoryTestResult> MemoryTest(size_t bytes, int passes);
  // STREAM triad over three arrays of `array_bytes`, `iterations` timed
  // after one warm-up; GB/s (10^9) counting two reads and a write.
  absl::StatusOr<double> TriadGbps(size_t array_bytes, int iterations);
  // A square bf16 GEMM (fp32 accumulation, tensor cores) through cuBLAS.
  absl::StatusOr<GemmResult> Gemm(int n, int iterations);

 private:
  GpuStress() = default;
  absl::StatusOr<float> TimeLaunches(const std::function<absl::Status()>& body);
  absl::Status Launch(void* function, uint64_t elements, void** args);
  int device_ = -1;
  void* module_ = nullptr;
  void* fill_ = nullptr;
  void* check_ = nullptr;
  void* triad_ = nullptr;
  int blocks_ = 0;
};

}  // namespace nodeprobe::platform
