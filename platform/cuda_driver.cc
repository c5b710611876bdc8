// File: cuda_driver.cc
#include "platform/cuda_driver.h"

#include <dlfcn.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

template <typename F>
void Bind(void* lib, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

const CudaDriver* LoadCudaDriver() {
  static const CudaDriver* driver = [] {
    auto* d = new CudaDriver();
    const char* forced = getenv("NODEPROBE_CUDA_LIBRARY");
    d->lib = dlopen(forced != nullptr && *forced != '\0' ? forced : "libcuda.so.1",
                    RTLD_NOW | RTLD_LOCAL);
    if (d->lib == nullptr) return d;
    void* l = d->lib;
    Bind(l, "cuInit", &d->init);
    Bind(l, "cuDeviceGet", &d->device_get);
    Bind(l, "cuDevicePrimaryCtxRetain", &d->retain);
    Bind(l, "cuDevicePrimaryCtxRelease_v2", &d->release);
    Bind(l, "cuCtxSetCurrent", &d->set_current);
    Bind(l, "cuMemAlloc_v2", &d->alloc);
    Bind(l, "cuMemFree_v2", &d->free);
    Bind(l, "cuPointerSetAttribute", &d->set_attribute);
    Bind(l, "cuMemGetHandleForAddressRange", &d->handle);
    Bind(l, "cuDeviceGetAttribute", &d->attribute);
    Bind(l, "cuDeviceGetByPCIBusId", &d->by_bus_id);
    Bind(l, "cuDeviceGetCount", &d->device_count);
    Bind(l, "cuDeviceGetPCIBusId", &d->pci_bus_id);
    Bind(l, "cuMemHostAlloc", &d->host_alloc);
    Bind(l, "cuMemFreeHost", &d->free_host);
    Bind(l, "cuMemcpyHtoDAsync_v2", &d->htod);
    Bind(l, "cuMemcpyDtoHAsync_v2", &d->dtoh);
    Bind(l, "cuStreamCreate", &d->stream_create);
    Bind(l, "cuStreamDestroy_v2", &d->stream_destroy);
    Bind(l, "cuEventCreate", &d->event_create);
    Bind(l, "cuEventRecord", &d->event_record);
    Bind(l, "cuEventSynchronize", &d->event_sync);
    Bind(l, "cuEventElapsedTime", &d->event_elapsed);
    Bind(l, "cuEventDestroy_v2", &d->event_destroy);
    Bind(l, "cuStreamWaitEvent", &d->stream_wait);
    Bind(l, "cuModuleLoadData", &d->module_load_data);
    Bind(l, "cuModuleUnload", &d->module_unload);
    Bind(l, "cuModuleGetFunction", &d->module_get_function);
    Bind(l, "cuLaunchKernel", &d->launch_kernel);
    Bind(l, "cuMemsetD32_v2", &d->memset_d32);
    Bind(l, "cuMemcpyDtoH_v2", &d->memcpy_dtoh);
    Bind(l, "cuMemcpyHtoD_v2", &d->memcpy_htod);
    Bind(l, "cuCtxSynchronize", &d->ctx_synchronize);
    Bind(l, "cuMemGetInfo_v2", &d->mem_get_info);
    Bind(l, "cuDeviceGetName", &d->device_name);
    return d;
  }();
  return driver;
}

absl::Status CudaCheck(int rc, const char* what) {
  if (rc == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(what, " failed with CUDA error ", rc));
}

absl::Status CudaUseDevice(const CudaDriver& d, int ordinal, int* device_out) {
  if (d.lib == nullptr || d.init == nullptr || d.device_get == nullptr || d.retain == nullptr ||
      d.set_current == nullptr) {
    return absl::FailedPreconditionError("no NVIDIA driver (libcuda.so.1) on this host");
  }
  absl::Status s = CudaCheck(d.init(0), "cuInit");
  int dev = 0;
  if (s.ok())
    s = CudaCheck(d.device_get(&dev, ordinal), absl::StrCat("cuDeviceGet ", ordinal).c_str());
  void* ctx = nullptr;
  if (s.ok()) s = CudaCheck(d.retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  if (!s.ok()) return s;
  s = CudaCheck(d.set_current(ctx), "cuCtxSetCurrent");
  if (!s.ok()) {
    CudaReleaseContext(d, dev);
    return s;
  }
  *device_out = dev;
  return absl::OkStatus();
}

void CudaReleaseContext(const CudaDriver& d, int device) {
  if (d.release != nullptr) d.release(device);
}

}  // namespace nodeprobe::platform
