// File: cuda_driver.h
// The CUDA driver API entry points nodeprobe calls, loaded with dlopen from
// libcuda.so.1 (nothing links CUDA; only worker processes load it, never the
// agent). Declared with the driver's ABI (cuda.h): CUresult is an int,
// CUdeviceptr a 64-bit integer, CUdevice an int, every handle a pointer.
// NODEPROBE_CUDA_LIBRARY names another library, and then only it: tests
// point it at their double (tests/fakes/fake_cuda.cc).
#pragma once

#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"

namespace nodeprobe::platform {

struct CudaDriver {
  void* lib = nullptr;
  int (*init)(unsigned int) = nullptr;
  int (*device_get)(int*, int) = nullptr;
  int (*retain)(void**, int) = nullptr;
  int (*release)(int) = nullptr;
  int (*set_current)(void*) = nullptr;
  int (*alloc)(uint64_t*, size_t) = nullptr;
  int (*free)(uint64_t) = nullptr;
  int (*set_attribute)(const void*, int, uint64_t) = nullptr;
  int (*handle)(void*, uint64_t, size_t, int, unsigned long long) = nullptr;  // CUDA 11.7+
  int (*attribute)(int*, int, int) = nullptr;
  int (*by_bus_id)(int*, const char*) = nullptr;
  int (*device_count)(int*) = nullptr;
  int (*pci_bus_id)(char*, int, int) = nullptr;
  int (*host_alloc)(void**, size_t, unsigned int) = nullptr;
  int (*free_host)(void*) = nullptr;
  int (*htod)(uint64_t, const void*, size_t, void*) = nullptr;
  int (*dtoh)(void*, uint64_t, size_t, void*) = nullptr;
  int (*stream_create)(void**, unsigned int) = nullptr;
  int (*stream_destroy)(void*) = nullptr;
  int (*event_create)(void**, unsigned int) = nullptr;
  int (*event_record)(void*, void*) = nullptr;
  int (*event_sync)(void*) = nullptr;
  int (*event_elapsed)(float*, void*, void*) = nullptr;
  int (*event_destroy)(void*) = nullptr;
  int (*stream_wait)(void*, void*, unsigned int) = nullptr;
  // Kernels of our own (gpu-diag): a module from an in-memory image, its
  // functions, launches, and what they need around them.
  int (*module_load_data)(void**, const void*) = nullptr;
  int (*module_unload)(void*) = nullptr;
  int (*module_get_function)(void**, void*, const char*) = nullptr;
  int (*launch_kernel)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       void*, void**, void**) = nullptr;
  int (*memset_d32)(uint64_t, unsigned int, size_t) = nullptr;
  int (*memcpy_dtoh)(void*, uint64_t, size_t) = nullptr;
  int (*memcpy_htod)(uint64_t, const void*, size_t) = nullptr;
  int (*ctx_synchronize)() = nullptr;
  int (*mem_get_info)(size_t*, size_t*) = nullptr;
  int (*device_name)(char*, int, int) = nullptr;
};

// Loaded once per process and left loaded (CUDA's destructors misbehave on
// dlclose); `lib` is null when there is no driver, every entry point the
// library lacks is null.
const CudaDriver* LoadCudaDriver();

// OK for CUDA_SUCCESS, else FAILED_PRECONDITION naming the call and code.
absl::Status CudaCheck(int rc, const char* what);

// cuInit, the device, its primary context retained and made current on
// this thread. `*device_out` is the CUdevice to release with
// CudaReleaseContext.
absl::Status CudaUseDevice(const CudaDriver& d, int ordinal, int* device_out);
void CudaReleaseContext(const CudaDriver& d, int device);

}  // namespace nodeprobe::platform
