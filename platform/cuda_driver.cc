#include "platform/cuda_driver.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "platform/shared_library.h"

namespace nodeprobe::platform {
const CudaDriver* LoadCudaDriver() {
  static const CudaDriver* driver = [] {
    auto* d = new CudaDriver();
    std::string path;
    std::vector<std::string> tried;
    d->lib = OpenFirstLibrary("NODEPROBE_CUDA_LIBRARY", {"libcuda.so.1"}, &path, &tried);
    if (d->lib == nullptr) return d;
    void* l = d->lib;
    BindSymbol(l, "cuInit", &d->init);
    BindSymbol(l, "cuDeviceGet", &d->device_get);
    BindSymbol(l, "cuDevicePrimaryCtxRetain", &d->retain);
    BindSymbol(l, "cuDevicePrimaryCtxRelease_v2", &d->release);
    BindSymbol(l, "cuCtxSetCurrent", &d->set_current);
    BindSymbol(l, "cuMemAlloc_v2", &d->alloc);
    BindSymbol(l, "cuMemFree_v2", &d->free);
    BindSymbol(l, "cuPointerSetAttribute", &d->set_attribute);
    BindSymbol(l, "cuMemGetHandleForAddressRange", &d->handle);
    BindSymbol(l, "cuDeviceGetAttribute", &d->attribute);
    BindSymbol(l, "cuDeviceGetByPCIBusId", &d->by_bus_id);
    BindSymbol(l, "cuDeviceGetCount", &d->device_count);
    BindSymbol(l, "cuDeviceGetPCIBusId", &d->pci_bus_id);
    BindSymbol(l, "cuMemHostAlloc", &d->host_alloc);
    BindSymbol(l, "cuMemFreeHost", &d->free_host);
    BindSymbol(l, "cuMemcpyHtoDAsync_v2", &d->htod);
    BindSymbol(l, "cuMemcpyDtoHAsync_v2", &d->dtoh);
    BindSymbol(l, "cuStreamCreate", &d->stream_create);
    BindSymbol(l, "cuStreamDestroy_v2", &d->stream_destroy);
    BindSymbol(l, "cuEventCreate", &d->event_create);
    BindSymbol(l, "cuEventRecord", &d->event_record);
    BindSymbol(l, "cuEventSynchronize", &d->event_sync);
    BindSymbol(l, "cuEventElapsedTime", &d->event_elapsed);
    BindSymbol(l, "cuEventDestroy_v2", &d->event_destroy);
    BindSymbol(l, "cuStreamWaitEvent", &d->stream_wait);
    BindSymbol(l, "cuModuleLoadData", &d->module_load_data);
    BindSymbol(l, "cuModuleUnload", &d->module_unload);
    BindSymbol(l, "cuModuleGetFunction", &d->module_get_function);
    BindSymbol(l, "cuLaunchKernel", &d->launch_kernel);
    BindSymbol(l, "cuMemsetD32_v2", &d->memset_d32);
    BindSymbol(l, "cuMemcpyDtoH_v2", &d->memcpy_dtoh);
    BindSymbol(l, "cuMemcpyHtoD_v2", &d->memcpy_htod);
    BindSymbol(l, "cuCtxSynchronize", &d->ctx_synchronize);
    BindSymbol(l, "cuMemGetInfo_v2", &d->mem_get_info);
    BindSymbol(l, "cuDeviceGetName", &d->device_name);
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
