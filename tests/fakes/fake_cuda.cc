// File: fake_cuda.cc
// A test double of the CUDA driver API and cuBLAS calls that
// platform/cuda_driver.cc and platform/gpu_stress.cc make, loaded through
// the same dlopen path (NODEPROBE_CUDA_LIBRARY, NODEPROBE_CUBLAS_LIBRARY:
// this one file answers both). Device memory is host memory; gpu-diag's
// kernels (np_fill, np_check, np_triad) run as host code; time is a
// virtual clock that a triad advances at $FAKE_CUDA_GBPS (default 3000)
// and a GEMM at $FAKE_CUDA_TFLOPS (default 700), read by the events.
//   FAKE_CUDA_DEVICES    how many GPUs (default 1)
//   FAKE_CUDA_FREE_BYTES what cuMemGetInfo says is free (default 64 MiB)
//   FAKE_CUDA_STUCK_WORD a 32-bit word index whose bit 0 is stuck at 0
//   FAKE_CUDA_MODULE_RC  cuModuleLoadData fails with this code
// Every variable is read at each call, so one test process can change it.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace {

constexpr int kSuccess = 0, kInvalidValue = 1, kOutOfMemory = 2, kNotFound = 500;

double Env(const char* name, double fallback) {
  const char* v = getenv(name);
  return v != nullptr && *v != '\0' ? strtod(v, nullptr) : fallback;
}

std::mutex mu;
double now_ms = 0;  // the virtual clock
void Advance(double ms) {
  std::lock_guard<std::mutex> l(mu);
  now_ms += ms;
}

// Function handles: the address of one of these names the kernel.
int kFill = 1, kCheck = 2, kTriad = 3;
int module_handle = 0;

int64_t StuckWord() { return static_cast<int64_t>(Env("FAKE_CUDA_STUCK_WORD", -1)); }

void Fill(void** args) {
  auto* words = *static_cast<uint32_t**>(args[0]);
  const uint64_t n = *static_cast<uint64_t*>(args[1]);
  const uint32_t pattern = *static_cast<uint32_t*>(args[2]);
  const int by_address = *static_cast<int*>(args[3]);
  const int64_t stuck = StuckWord();
  for (uint64_t i = 0; i < n; ++i) {
    words[i] = by_address ? pattern ^ static_cast<uint32_t>(i) : pattern;
    if (static_cast<int64_t>(i) == stuck) words[i] &= ~1u;
  }
}

void Check(void** args) {
  auto* words = *static_cast<uint32_t**>(args[0]);
  const uint64_t n = *static_cast<uint64_t*>(args[1]);
  const uint32_t pattern = *static_cast<uint32_t*>(args[2]);
  const int by_address = *static_cast<int*>(args[3]);
  auto* bad = *static_cast<unsigned long long**>(args[4]);
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t want = by_address ? pattern ^ static_cast<uint32_t>(i) : pattern;
    if (words[i] != want) {
      ++bad[0];
      if (i < bad[1]) bad[1] = i;
    }
  }
}

}  // namespace

extern "C" {

int cuInit(unsigned) { return kSuccess; }
int cuDeviceGetCount(int* n) {
  *n = static_cast<int>(Env("FAKE_CUDA_DEVICES", 1));
  return kSuccess;
}
int cuDeviceGet(int* dev, int ordinal) {
  if (ordinal < 0 || ordinal >= static_cast<int>(Env("FAKE_CUDA_DEVICES", 1))) {
    return kInvalidValue;
  }
  *dev = ordinal;
  return kSuccess;
}
int cuDeviceGetPCIBusId(char* out, int len, int dev) {
  snprintf(out, len, "00000000:%02X:00.0", 0x19 + dev);
  return kSuccess;
}
int cuDeviceGetAttribute(int* value, int attribute, int) {
  *value = attribute == 16 ? 4 : 0;  // MULTIPROCESSOR_COUNT
  return kSuccess;
}
int cuDevicePrimaryCtxRetain(void** ctx, int) {
  static int context;
  *ctx = &context;
  return kSuccess;
}
int cuDevicePrimaryCtxRelease_v2(int) { return kSuccess; }
int cuCtxSetCurrent(void*) { return kSuccess; }
int cuCtxSynchronize() { return kSuccess; }
int cuMemGetInfo_v2(size_t* free, size_t* total) {
  *free = static_cast<size_t>(Env("FAKE_CUDA_FREE_BYTES", 64 << 20));
  *total = *free * 2;
  return kSuccess;
}
int cuMemAlloc_v2(uint64_t* ptr, size_t bytes) {
  if (bytes > static_cast<size_t>(Env("FAKE_CUDA_FREE_BYTES", 64 << 20)) * 2) return kOutOfMemory;
  void* p = calloc(1, bytes);
  if (p == nullptr) return kOutOfMemory;
  *ptr = reinterpret_cast<uint64_t>(p);
  return kSuccess;
}
int cuMemFree_v2(uint64_t ptr) {
  free(reinterpret_cast<void*>(ptr));
  return kSuccess;
}
int cuMemsetD32_v2(uint64_t ptr, unsigned value, size_t count) {
  auto* words = reinterpret_cast<uint32_t*>(ptr);
  for (size_t i = 0; i < count; ++i) words[i] = value;
  return kSuccess;
}
int cuMemcpyDtoH_v2(void* dst, uint64_t src, size_t bytes) {
  memcpy(dst, reinterpret_cast<void*>(src), bytes);
  return kSuccess;
}
int cuMemcpyHtoD_v2(uint64_t dst, const void* src, size_t bytes) {
  memcpy(reinterpret_cast<void*>(dst), src, bytes);
  return kSuccess;
}
int cuModuleLoadData(void** module, const void* image) {
  if (const int rc = static_cast<int>(Env("FAKE_CUDA_MODULE_RC", 0)); rc != 0) return rc;
  if (image == nullptr) return kInvalidValue;
  *module = &module_handle;
  return kSuccess;
}
int cuModuleUnload(void*) { return kSuccess; }
int cuModuleGetFunction(void** function, void*, const char* name) {
  if (strcmp(name, "np_fill") == 0) {
    *function = &kFill;
  } else if (strcmp(name, "np_check") == 0) {
    *function = &kCheck;
  } else if (strcmp(name, "np_triad") == 0) {
    *function = &kTriad;
  } else {
    return kNotFound;
  }
  return kSuccess;
}
int cuLaunchKernel(void* f, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                   void*, void** args, void**) {
  if (f == &kFill) {
    Fill(args);
  } else if (f == &kCheck) {
    Check(args);
  } else if (f == &kTriad) {
    const double bytes = 3.0 * 8 * static_cast<double>(*static_cast<uint64_t*>(args[4]));
    Advance(bytes / (Env("FAKE_CUDA_GBPS", 3000) * 1e9) * 1e3);
  } else {
    return kInvalidValue;
  }
  return kSuccess;
}
int cuEventCreate(void** event, unsigned) {
  *event = new double(0);
  return kSuccess;
}
int cuEventRecord(void* event, void*) {
  std::lock_guard<std::mutex> l(mu);
  *static_cast<double*>(event) = now_ms;
  return kSuccess;
}
int cuEventSynchronize(void*) { return kSuccess; }
int cuEventElapsedTime(float* ms, void* from, void* to) {
  *ms = static_cast<float>(*static_cast<double*>(to) - *static_cast<double*>(from));
  return kSuccess;
}
int cuEventDestroy_v2(void* event) {
  delete static_cast<double*>(event);
  return kSuccess;
}

// cuBLAS.
int cublasCreate_v2(void** handle) {
  static int h;
  *handle = &h;
  return 0;
}
int cublasDestroy_v2(void*) { return 0; }
int cublasGemmEx(void*, int, int, int m, int n, int k, const void*, const void*, int, int,
                 const void*, int, int, const void*, void*, int, int, int, int) {
  const double flops = 2.0 * m * static_cast<double>(n) * k;
  Advance(flops / (Env("FAKE_CUDA_TFLOPS", 700) * 1e12) * 1e3);
  return 0;
}

}  // extern "C"
