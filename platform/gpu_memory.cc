// File: gpu_memory.cc
#include "platform/gpu_memory.h"

#include <dlfcn.h>
#include <unistd.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

// The few driver API entry points used, with the driver's ABI (cuda.h):
// CUresult is an int, CUdeviceptr a 64-bit integer, CUdevice an int.
using CuInit = int (*)(unsigned int);
using CuDeviceGet = int (*)(int*, int);
using CuPrimaryCtxRetain = int (*)(void**, int);
using CuPrimaryCtxRelease = int (*)(int);
using CuCtxSetCurrent = int (*)(void*);
using CuMemAlloc = int (*)(uint64_t*, size_t);
using CuMemFree = int (*)(uint64_t);
using CuPointerSetAttribute = int (*)(const void*, int, uint64_t);
using CuMemGetHandleForAddressRange = int (*)(void*, uint64_t, size_t, int, unsigned long long);
using CuDeviceGetAttribute = int (*)(int*, int, int);
using CuDeviceGetByPciBusId = int (*)(int*, const char*);

constexpr int kDeviceAttributeDmaBufSupported = 124;  // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED

constexpr int kPointerAttributeSyncMemops = 6;    // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
constexpr int kMemRangeHandleTypeDmaBufFd = 0x1;  // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

struct Driver {
  void* lib = nullptr;
  CuInit init = nullptr;
  CuDeviceGet device_get = nullptr;
  CuPrimaryCtxRetain retain = nullptr;
  CuPrimaryCtxRelease release = nullptr;
  CuCtxSetCurrent set_current = nullptr;
  CuMemAlloc alloc = nullptr;
  CuMemFree free = nullptr;
  CuPointerSetAttribute set_attribute = nullptr;
  CuMemGetHandleForAddressRange handle = nullptr;  // CUDA 11.7+
  CuDeviceGetAttribute attribute = nullptr;
  CuDeviceGetByPciBusId by_bus_id = nullptr;
};

// Loaded once per process; left loaded (CUDA's destructors misbehave on
// dlclose).
const Driver* LoadDriver() {
  static const Driver* driver = [] {
    auto* d = new Driver();
    d->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (d->lib == nullptr) return d;
    auto sym = [&](const char* name) { return dlsym(d->lib, name); };
    d->init = reinterpret_cast<CuInit>(sym("cuInit"));
    d->device_get = reinterpret_cast<CuDeviceGet>(sym("cuDeviceGet"));
    d->retain = reinterpret_cast<CuPrimaryCtxRetain>(sym("cuDevicePrimaryCtxRetain"));
    d->release = reinterpret_cast<CuPrimaryCtxRelease>(sym("cuDevicePrimaryCtxRelease_v2"));
    d->set_current = reinterpret_cast<CuCtxSetCurrent>(sym("cuCtxSetCurrent"));
    d->alloc = reinterpret_cast<CuMemAlloc>(sym("cuMemAlloc_v2"));
    d->free = reinterpret_cast<CuMemFree>(sym("cuMemFree_v2"));
    d->set_attribute = reinterpret_cast<CuPointerSetAttribute>(sym("cuPointerSetAttribute"));
    d->handle =
        reinterpret_cast<CuMemGetHandleForAddressRange>(sym("cuMemGetHandleForAddressRange"));
    d->attribute = reinterpret_cast<CuDeviceGetAttribute>(sym("cuDeviceGetAttribute"));
    d->by_bus_id = reinterpret_cast<CuDeviceGetByPciBusId>(sym("cuDeviceGetByPCIBusId"));
    return d;
  }();
  return driver;
}

absl::Status Check(int rc, const char* what) {
  if (rc == 0) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(what, " failed with CUDA error ", rc));
}

size_t HostPage() {
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<size_t>(page) : 4096;
}

}  // namespace

size_t RoundUpToPage(size_t size, size_t page) {
  if (page == 0) return size;
  return (size + page - 1) / page * page;
}

DmaBufRange AlignForDmaBuf(uint64_t ptr, size_t size, size_t page) {
  DmaBufRange r;
  if (page == 0) return DmaBufRange{ptr, size, 0};
  r.base = ptr / page * page;
  r.offset = ptr - r.base;
  r.size = RoundUpToPage(static_cast<size_t>(r.offset) + size, page);
  return r;
}

absl::StatusOr<int> GpuMemory::OrdinalOfPciBus(const std::string& bus_id) {
  const Driver* d = LoadDriver();
  if (d->lib == nullptr || d->init == nullptr || d->by_bus_id == nullptr) {
    return absl::FailedPreconditionError(
        "no NVIDIA driver (libcuda.so.1) on this host: GPU memory is unavailable");
  }
  absl::Status s = Check(d->init(0), "cuInit");
  int dev = -1;
  if (s.ok()) s = Check(d->by_bus_id(&dev, bus_id.c_str()),
                        absl::StrCat("cuDeviceGetByPCIBusId ", bus_id).c_str());
  if (!s.ok()) return s;
  return dev;  // a CUdevice is its ordinal
}

absl::StatusOr<std::unique_ptr<GpuMemory>> GpuMemory::Allocate(int device, size_t bytes) {
  const Driver* d = LoadDriver();
  if (d->lib == nullptr || d->init == nullptr || d->alloc == nullptr || d->retain == nullptr) {
    return absl::FailedPreconditionError(
        "no NVIDIA driver (libcuda.so.1) on this host: GPU memory is unavailable");
  }
  absl::Status s = Check(d->init(0), "cuInit");
  int dev = 0;
  if (s.ok() && d->device_get == nullptr) s = absl::FailedPreconditionError("no cuDeviceGet");
  if (s.ok()) s = Check(d->device_get(&dev, device), absl::StrCat("cuDeviceGet ", device).c_str());
  void* ctx = nullptr;
  if (s.ok()) s = Check(d->retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  if (!s.ok()) return s;
  // From here the retained context is released on every error path.
  s = d->set_current ? Check(d->set_current(ctx), "cuCtxSetCurrent")
                     : absl::FailedPreconditionError("the CUDA driver lacks cuCtxSetCurrent");
  if (!s.ok()) {
    if (d->release) d->release(dev);
    return s;
  }
  std::unique_ptr<GpuMemory> m(new GpuMemory());
  m->device_ = dev;
  m->size_ = bytes;
  // Whole pages, so the dma-buf range around the buffer is ours.
  s = Check(d->alloc(&m->ptr_, RoundUpToPage(bytes, HostPage())), "cuMemAlloc");
  if (!s.ok()) {
    m->ptr_ = 0;
    return s;  // the destructor releases the context
  }
  // GPUDirect RDMA needs synchronous memory operations on this range so a
  // completion seen by the NIC is ordered with CUDA copies.
  unsigned int one = 1;
  if (d->set_attribute) d->set_attribute(&one, kPointerAttributeSyncMemops, m->ptr_);
  return m;
}

GpuMemory::~GpuMemory() {
  const Driver* d = LoadDriver();
  if (ptr_ != 0 && d->free) d->free(ptr_);
  if (d->release) d->release(device_);
}

DmaBufRange GpuMemory::range() const { return AlignForDmaBuf(ptr_, size_, HostPage()); }

absl::StatusOr<int> GpuMemory::DmaBufFd() const {
  const Driver* d = LoadDriver();
  if (d->handle == nullptr) {
    return absl::FailedPreconditionError("the CUDA driver cannot export dma-buf (CUDA < 11.7)");
  }
  int supported = 0;
  if (d->attribute != nullptr &&
      d->attribute(&supported, kDeviceAttributeDmaBufSupported, device_) == 0 && !supported) {
    return absl::FailedPreconditionError(
        "the GPU driver does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0: "
        "the proprietary kernel module; the open module supports it)");
  }
  const DmaBufRange r = range();
  int fd = -1;
  absl::Status s = Check(d->handle(&fd, r.base, r.size, kMemRangeHandleTypeDmaBufFd, 0),
                         "cuMemGetHandleForAddressRange");
  if (!s.ok()) return s;
  return fd;
}

}  // namespace nodeprobe::platform
