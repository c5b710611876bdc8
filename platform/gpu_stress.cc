#include "platform/gpu_stress.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "platform/cuda_driver.h"
#include "platform/shared_library.h"

namespace nodeprobe::platform {
namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kAttributeSmCount = 16;  // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT

// cuBLAS entry points with cublas_api.h's ABI: cublasStatus_t, the
// operation, cudaDataType and cublasComputeType_t are ints, handles pointers.
constexpr int kCublasOpN = 0;           // CUBLAS_OP_N
constexpr int kCudaR16Bf = 14;          // CUDA_R_16BF
constexpr int kCublasCompute32F = 68;   // CUBLAS_COMPUTE_32F
constexpr int kCublasGemmDefault = -1;  // CUBLAS_GEMM_DEFAULT
struct Cublas {
  std::string path;
  std::string error;
  int (*create)(void**) = nullptr;
  int (*destroy)(void*) = nullptr;
  int (*gemm_ex)(void*, int, int, int, int, int, const void*, const void*, int, int, const void*,
                 int, int, const void*, void*, int, int, int, int) = nullptr;
};

const Cublas& LoadCublas() {
  static const Cublas* cublas = [] {
    auto* c = new Cublas();
    std::vector<std::string> tried;
    void* lib = OpenFirstLibrary("NODEPROBE_CUBLAS_LIBRARY",
                                 {"libcublas.so.13", "libcublas.so.12", "libcublas.so.11",
                                  "/usr/local/cuda/lib64/libcublas.so"},
                                 &c->path, &tried);
    if (lib == nullptr) {
      c->error = absl::StrJoin(tried, "; ");
      return c;
    }
    BindSymbol(lib, "cublasCreate_v2", &c->create);
    BindSymbol(lib, "cublasDestroy_v2", &c->destroy);
    BindSymbol(lib, "cublasGemmEx", &c->gemm_ex);
    if (!c->create || !c->destroy || !c->gemm_ex) {
      c->error = absl::StrCat(c->path, " lacks cublasCreate_v2, cublasDestroy_v2 or cublasGemmEx");
      c->create = nullptr;
    }
    return c;
  }();
  return *cublas;
}

// Device memory freed when it leaves scope.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer() {
    if (ptr_ != 0) LoadCudaDriver()->free(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  absl::Status Allocate(size_t bytes) {
    return CudaCheck(LoadCudaDriver()->alloc(&ptr_, bytes),
                     absl::StrCat("cuMemAlloc of ", bytes, " bytes").c_str());
  }
  uint64_t get() const { return ptr_; }
  uint64_t* address() { return &ptr_; }

 private:
  uint64_t ptr_ = 0;
};

struct Pattern {
  uint32_t value;
  int by_address;
};
constexpr Pattern kPatterns[] = {{0x00000000u, 0}, {0xFFFFFFFFu, 0}, {0x55555555u, 0},
                                 {0xAAAAAAAAu, 0}, {0x00000000u, 1}, {0xFFFFFFFFu, 1}};

std::string PatternName(const Pattern& p) {
  return absl::StrFormat("%s0x%08x", p.by_address ? "address^" : "", p.value);
}

bool HasKernelApi(const CudaDriver& d) {
  return d.module_load_data && d.module_unload && d.module_get_function && d.launch_kernel &&
         d.memset_d32 && d.memcpy_dtoh && d.ctx_synchronize && d.mem_get_info && d.alloc &&
         d.free && d.event_create && d.event_record && d.event_sync && d.event_elapsed &&
         d.event_destroy && d.attribute;
}

}  // namespace

absl::StatusOr<std::unique_ptr<GpuStress>> GpuStress::Open(int ordinal, std::string_view image) {
  const CudaDriver* d = LoadCudaDriver();
  if (d->lib == nullptr) {
    return absl::FailedPreconditionError("no NVIDIA driver (libcuda.so.1) on this host");
  }
  if (!HasKernelApi(*d)) {
    return absl::FailedPreconditionError("the CUDA driver lacks a module, launch or event call");
  }
  if (image.empty()) {
    return absl::FailedPreconditionError(
        "this nodeprobe was built without nvcc, so it has no GPU kernels: build it where "
        "/usr/local/cuda/bin/nvcc exists");
  }
  int dev = 0;
  if (absl::Status s = CudaUseDevice(*d, ordinal, &dev); !s.ok()) return s;
  std::unique_ptr<GpuStress> g(new GpuStress());
  g->device_ = dev;  // from here the destructor releases the context
  absl::Status s = CudaCheck(d->module_load_data(&g->module_, image.data()),
                             "cuModuleLoadData (gpu-diag's kernels)");
  if (!s.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(s.message(),
                     ": the driver is older than the nvcc that built them, or the GPU is older "
                     "than sm_75"));
  }
  const std::pair<void**, const char*> functions[] = {
      {&g->fill_, "np_fill"}, {&g->check_, "np_check"}, {&g->triad_, "np_triad"}};
  for (const auto& [out, name] : functions) {
    s = CudaCheck(d->module_get_function(out, g->module_, name),
                  absl::StrCat("cuModuleGetFunction ", name).c_str());
    if (!s.ok()) return s;
  }
  int sms = 0;
  if (d->attribute(&sms, kAttributeSmCount, dev) != 0 || sms <= 0) sms = 1;
  g->blocks_ = sms * kBlocksPerSm;
  return g;
}

GpuStress::~GpuStress() {
  const CudaDriver* d = LoadCudaDriver();
  if (module_ != nullptr) d->module_unload(module_);
  if (device_ >= 0) CudaReleaseContext(*d, device_);
}

absl::StatusOr<size_t> GpuStress::FreeBytes() const {
  size_t free = 0, total = 0;
  if (absl::Status s = CudaCheck(LoadCudaDriver()->mem_get_info(&free, &total), "cuMemGetInfo");
      !s.ok()) {
    return s;
  }
  return free;
}

absl::Status GpuStress::Launch(void* function, uint64_t elements, void** args) {
  const uint64_t wanted = (elements + kThreads - 1) / kThreads;
  const unsigned grid =
      static_cast<unsigned>(std::max<uint64_t>(1, std::min<uint64_t>(blocks_, wanted)));
  return CudaCheck(LoadCudaDriver()->launch_kernel(function, grid, 1, 1, kThreads, 1, 1, 0, nullptr,
                                                   args, nullptr),
                   "cuLaunchKernel");
}

absl::StatusOr<float> GpuStress::TimeLaunches(const std::function<absl::Status()>& body) {
  const CudaDriver* d = LoadCudaDriver();
  void* start = nullptr;
  void* stop = nullptr;
  absl::Status s = CudaCheck(d->event_create(&start, 0), "cuEventCreate");
  if (s.ok()) s = CudaCheck(d->event_create(&stop, 0), "cuEventCreate");
  if (s.ok()) s = CudaCheck(d->event_record(start, nullptr), "cuEventRecord");
  if (s.ok()) s = body();
  if (s.ok()) s = CudaCheck(d->event_record(stop, nullptr), "cuEventRecord");
  if (s.ok()) s = CudaCheck(d->event_sync(stop), "cuEventSynchronize");
  float ms = 0;
  if (s.ok()) s = CudaCheck(d->event_elapsed(&ms, start, stop), "cuEventElapsedTime");
  if (start) d->event_destroy(start);
  if (stop) d->event_destroy(stop);
  if (!s.ok()) return s;
  if (ms <= 0) return absl::InternalError("CUDA events measured no time");
  return ms;
}

absl::StatusOr<MemoryTestResult> GpuStress::MemoryTest(size_t bytes, int passes) {
  const CudaDriver* d = LoadCudaDriver();
  const absl::Time began = absl::Now();
  DeviceBuffer words, bad;
  size_t size = bytes / 4 * 4;
  absl::Status s = absl::FailedPreconditionError("nothing to test");
  while (size >= bytes / 2 && size > 0) {
    s = words.Allocate(size);
    if (s.ok()) break;
    size = size / 10 * 9 / 4 * 4;  // another process took some since we asked
  }
  if (!s.ok()) return s;
  if (s = bad.Allocate(2 * sizeof(uint64_t)); !s.ok()) return s;
  MemoryTestResult r;
  r.bytes = size;
  uint64_t n = size / 4;
  uint64_t lowest = ~0ull;
  for (int pass = 0; pass < passes; ++pass) {
    for (const Pattern& p : kPatterns) {
      uint64_t dst = words.get(), counters = bad.get();
      uint32_t value = p.value;
      int by_address = p.by_address;
      void* fill_args[] = {&dst, &n, &value, &by_address};
      s = Launch(fill_, n, fill_args);
      // bad[0] = 0 (count), bad[1] = all ones (lowest bad index).
      if (s.ok()) s = CudaCheck(d->memset_d32(counters, 0, 2), "cuMemsetD32");
      if (s.ok()) s = CudaCheck(d->memset_d32(counters + 8, 0xFFFFFFFFu, 2), "cuMemsetD32");
      void* check_args[] = {&dst, &n, &value, &by_address, &counters};
      if (s.ok()) s = Launch(check_, n, check_args);
      if (s.ok()) s = CudaCheck(d->ctx_synchronize(), "cuCtxSynchronize (memory test)");
      uint64_t host[2] = {0, 0};
      if (s.ok()) s = CudaCheck(d->memcpy_dtoh(host, counters, sizeof(host)), "cuMemcpyDtoH");
      if (!s.ok()) return s;
      ++r.patterns;
      if (host[0] == 0) continue;
      r.bad_words += host[0];
      lowest = std::min(lowest, host[1]);
      const std::string name = PatternName(p);
      if (std::find(r.failed_patterns.begin(), r.failed_patterns.end(), name) ==
          r.failed_patterns.end()) {
        r.failed_patterns.push_back(name);
      }
    }
  }
  if (r.bad_words > 0) r.first_bad_offset = lowest * 4;
  r.seconds = absl::ToDoubleSeconds(absl::Now() - began);
  return r;
}

absl::StatusOr<double> GpuStress::TriadGbps(size_t array_bytes, int iterations) {
  const CudaDriver* d = LoadCudaDriver();
  if (iterations < 1 || array_bytes < 8) return absl::InvalidArgumentError("nothing to measure");
  DeviceBuffer a, b, c;
  for (DeviceBuffer* buf : {&a, &b, &c}) {
    if (absl::Status s = buf->Allocate(array_bytes); !s.ok()) return s;
  }
  uint64_t n = array_bytes / 8;
  // 0x3FF03FF0 in both halves: every element a finite double near 1.
  for (DeviceBuffer* buf : {&b, &c}) {
    if (absl::Status s = CudaCheck(d->memset_d32(buf->get(), 0x3FF03FF0u, n * 2), "cuMemsetD32");
        !s.ok()) {
      return s;
    }
  }
  uint64_t pa = a.get(), pb = b.get(), pc = c.get();
  double scalar = 3.0;
  void* args[] = {&pa, &pb, &pc, &scalar, &n};
  if (absl::Status s = Launch(triad_, n, args); !s.ok()) return s;  // warm-up
  absl::StatusOr<float> ms = TimeLaunches([&]() {
    for (int i = 0; i < iterations; ++i) {
      if (absl::Status s = Launch(triad_, n, args); !s.ok()) return s;
    }
    return absl::OkStatus();
  });
  if (!ms.ok()) return ms.status();
  return 3.0 * static_cast<double>(n * 8) * iterations / (*ms * 1e-3) / 1e9;
}

absl::StatusOr<GemmResult> GpuStress::Gemm(int n, int iterations) {
  const CudaDriver* d = LoadCudaDriver();
  const Cublas& cublas = LoadCublas();
  if (cublas.create == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat("no usable cuBLAS (libcublas): ", cublas.error));
  }
  if (n < 16 || iterations < 1) return absl::InvalidArgumentError("nothing to multiply");
  const size_t bytes = static_cast<size_t>(n) * n * 2;  // bf16
  DeviceBuffer a, b, c;
  for (DeviceBuffer* buf : {&a, &b, &c}) {
    if (absl::Status s = buf->Allocate(bytes); !s.ok()) return s;
  }
  // 2^-7 everywhere (bf16 0x3C00): each result is n x 2^-14, finite.
  for (DeviceBuffer* buf : {&a, &b}) {
    if (absl::Status s =
            CudaCheck(d->memset_d32(buf->get(), 0x3C003C00u, bytes / 4), "cuMemsetD32");
        !s.ok()) {
      return s;
    }
  }
  void* handle = nullptr;
  if (int rc = cublas.create(&handle); rc != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cublasCreate failed with status ", rc));
  }
  const float alpha = 1.0f, beta = 0.0f;
  auto gemm = [&]() -> absl::Status {
    const int rc = cublas.gemm_ex(
        handle, kCublasOpN, kCublasOpN, n, n, n, &alpha, reinterpret_cast<void*>(a.get()),
        kCudaR16Bf, n, reinterpret_cast<void*>(b.get()), kCudaR16Bf, n, &beta,
        reinterpret_cast<void*>(c.get()), kCudaR16Bf, n, kCublasCompute32F, kCublasGemmDefault);
    return rc == 0 ? absl::OkStatus()
                   : absl::InternalError(absl::StrCat("cublasGemmEx failed with status ", rc));
  };
  absl::Status warm = gemm();
  absl::StatusOr<float> ms = warm.ok() ? TimeLaunches([&]() {
    for (int i = 0; i < iterations; ++i) {
      if (absl::Status s = gemm(); !s.ok()) return s;
    }
    return absl::OkStatus();
  })
                                       : absl::StatusOr<float>(warm);
  cublas.destroy(handle);
  if (!ms.ok()) return ms.status();
  GemmResult r;
  r.n = n;
  r.iterations = iterations;
  r.tflops = 2.0 * n * static_cast<double>(n) * n * iterations / (*ms * 1e-3) / 1e12;
  r.dtype = "bf16 in, fp32 accumulate";
  r.library = cublas.path;
  return r;
}

}  // namespace nodeprobe::platform
