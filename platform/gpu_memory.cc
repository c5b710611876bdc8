#include "platform/gpu_memory.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "platform/cuda_driver.h"

namespace nodeprobe::platform {
namespace {

constexpr int kDeviceAttributeDmaBufSupported = 124;  // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED
constexpr int kPointerAttributeSyncMemops = 6;    // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
constexpr int kMemRangeHandleTypeDmaBufFd = 0x1;  // CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD

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
  const CudaDriver* d = LoadCudaDriver();
  if (d->lib == nullptr || d->init == nullptr || d->by_bus_id == nullptr) {
    return absl::FailedPreconditionError(
        "no NVIDIA driver (libcuda.so.1) on this host: GPU memory is unavailable");
  }
  absl::Status s = CudaCheck(d->init(0), "cuInit");
  int dev = -1;
  if (s.ok())
    s = CudaCheck(d->by_bus_id(&dev, bus_id.c_str()),
                  absl::StrCat("cuDeviceGetByPCIBusId ", bus_id).c_str());
  if (!s.ok()) return s;
  return dev;  // a CUdevice is its ordinal
}

absl::StatusOr<std::unique_ptr<GpuMemory>> GpuMemory::Allocate(int device, size_t bytes) {
  const CudaDriver* d = LoadCudaDriver();
  if (d->alloc == nullptr) {
    return absl::FailedPreconditionError(
        "no NVIDIA driver (libcuda.so.1) on this host: GPU memory is unavailable");
  }
  int dev = 0;
  if (absl::Status s = CudaUseDevice(*d, device, &dev); !s.ok()) return s;
  // From here the retained context is released on every error path (the
  // destructor).
  absl::Status s;
  std::unique_ptr<GpuMemory> m(new GpuMemory());
  m->device_ = dev;
  m->size_ = bytes;
  // Whole pages, so the dma-buf range around the buffer is ours.
  s = CudaCheck(d->alloc(&m->ptr_, RoundUpToPage(bytes, HostPage())), "cuMemAlloc");
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
  const CudaDriver* d = LoadCudaDriver();
  if (ptr_ != 0 && d->free) d->free(ptr_);
  CudaReleaseContext(*d, device_);
}

DmaBufRange GpuMemory::range() const { return AlignForDmaBuf(ptr_, size_, HostPage()); }

absl::StatusOr<int> GpuMemory::DmaBufFd() const {
  const CudaDriver* d = LoadCudaDriver();
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
  absl::Status s = CudaCheck(d->handle(&fd, r.base, r.size, kMemRangeHandleTypeDmaBufFd, 0),
                             "cuMemGetHandleForAddressRange");
  if (!s.ok()) return s;
  return fd;
}

absl::StatusOr<std::vector<std::string>> CudaDeviceBusIds() {
  const CudaDriver* d = LoadCudaDriver();
  if (d->lib == nullptr || d->init == nullptr || d->device_count == nullptr ||
      d->pci_bus_id == nullptr) {
    return absl::FailedPreconditionError("no NVIDIA driver (libcuda.so.1) on this host");
  }
  if (absl::Status s = CudaCheck(d->init(0), "cuInit"); !s.ok()) return s;
  int n = 0;
  if (absl::Status s = CudaCheck(d->device_count(&n), "cuDeviceGetCount"); !s.ok()) return s;
  std::vector<std::string> out;
  for (int i = 0; i < n && i < 64; ++i) {
    char bus[32] = {};
    if (d->pci_bus_id(bus, sizeof(bus), i) != 0) {
      out.push_back("");
      continue;
    }
    std::string id(bus);
    for (char& c : id) c = static_cast<char>(tolower(c));
    // CUDA prints an 8-digit domain ("00000000:19:00.0"); sysfs has 4.
    if (id.size() == 16 && id.compare(0, 4, "0000") == 0) id = id.substr(4);
    out.push_back(id);
  }
  return out;
}

namespace {

bool HasCopyApi(const CudaDriver& d) {
  return d.host_alloc && d.free_host && d.htod && d.dtoh && d.stream_create &&
         d.stream_destroy && d.event_create && d.event_record && d.event_sync &&
         d.event_elapsed && d.event_destroy && d.stream_wait;
}

// The host buffers, streams and events of one measurement, released in one
// place; the device buffers are GpuMemory (which holds the GPU's context).
struct CopySession {
  const CudaDriver* d;
  void* host[2] = {nullptr, nullptr};
  void* stream[2] = {nullptr, nullptr};
  void* event[3] = {nullptr, nullptr, nullptr};
  ~CopySession() {
    for (void* e : event) if (e) d->event_destroy(e);
    for (void* s : stream) if (s) d->stream_destroy(s);
    for (void* h : host) if (h) d->free_host(h);
  }
};

// Milliseconds between two recorded events once the second completed.
absl::StatusOr<float> Elapsed(const CudaDriver* d, void* from, void* to) {
  if (absl::Status s = CudaCheck(d->event_sync(to), "cuEventSynchronize"); !s.ok()) return s;
  float ms = 0;
  if (absl::Status s = CudaCheck(d->event_elapsed(&ms, from, to), "cuEventElapsedTime"); !s.ok()) {
    return s;
  }
  return ms;
}

}  // namespace

absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(int device, size_t bytes, int iterations) {
  const CudaDriver* d = LoadCudaDriver();
  if (d->lib == nullptr) {
    return absl::FailedPreconditionError("no NVIDIA driver (libcuda.so.1) on this host");
  }
  if (!HasCopyApi(*d)) {
    return absl::FailedPreconditionError("the CUDA driver lacks a copy or event entry point");
  }
  if (iterations < 1 || bytes == 0) return absl::InvalidArgumentError("nothing to copy");
  // Device memory as every GPU buffer here is made; its context is then
  // current on this thread for the copies.
  absl::StatusOr<std::unique_ptr<GpuMemory>> dev0 = GpuMemory::Allocate(device, bytes);
  if (!dev0.ok()) return dev0.status();
  absl::StatusOr<std::unique_ptr<GpuMemory>> dev1 = GpuMemory::Allocate(device, bytes);
  if (!dev1.ok()) return dev1.status();
  const uint64_t dev[2] = {(*dev0)->address(), (*dev1)->address()};
  CopySession c{d};
  absl::Status s = absl::OkStatus();
  for (int i = 0; s.ok() && i < 2; ++i) {
    s = CudaCheck(d->host_alloc(&c.host[i], bytes, 0), "cuMemHostAlloc");            // pinned
    if (s.ok()) s = CudaCheck(d->stream_create(&c.stream[i], 1), "cuStreamCreate");  // non-blocking
  }
  for (int i = 0; s.ok() && i < 3; ++i)
    s = CudaCheck(d->event_create(&c.event[i], 0), "cuEventCreate");
  if (!s.ok()) return s;
  void* s0 = c.stream[0];
  void* s1 = c.stream[1];
  // One direction: warm-up, then `iterations` copies between two events.
  auto one_way = [&](bool h2d) -> absl::StatusOr<double> {
    auto copy = [&]() {
      return h2d ? d->htod(dev[0], c.host[0], bytes, s0) : d->dtoh(c.host[0], dev[0], bytes, s0);
    };
    absl::Status st = CudaCheck(copy(), "cuMemcpyAsync");
    if (st.ok()) st = CudaCheck(d->event_record(c.event[0], s0), "cuEventRecord");
    for (int i = 0; st.ok() && i < iterations; ++i) st = CudaCheck(copy(), "cuMemcpyAsync");
    if (st.ok()) st = CudaCheck(d->event_record(c.event[1], s0), "cuEventRecord");
    if (!st.ok()) return st;
    absl::StatusOr<float> ms = Elapsed(d, c.event[0], c.event[1]);
    if (!ms.ok()) return ms.status();
    return *ms > 0 ? static_cast<double>(bytes) * iterations / (*ms * 1e-3) / 1e9 : 0.0;
  };
  absl::StatusOr<double> h2d = one_way(true);
  if (!h2d.ok()) return h2d.status();
  absl::StatusOr<double> d2h = one_way(false);
  if (!d2h.ok()) return d2h.status();
  // Both at once: stream 1 waits for stream 0's start event, so the two
  // copy engines start together; the time runs to the later end.
  s = CudaCheck(d->event_record(c.event[0], s0), "cuEventRecord");
  if (s.ok()) s = CudaCheck(d->stream_wait(s1, c.event[0], 0), "cuStreamWaitEvent");
  for (int i = 0; s.ok() && i < iterations; ++i) {
    s = CudaCheck(d->htod(dev[0], c.host[0], bytes, s0), "cuMemcpyHtoDAsync");
    if (s.ok()) s = CudaCheck(d->dtoh(c.host[1], dev[1], bytes, s1), "cuMemcpyDtoHAsync");
  }
  if (s.ok()) s = CudaCheck(d->event_record(c.event[1], s0), "cuEventRecord");
  if (s.ok()) s = CudaCheck(d->event_record(c.event[2], s1), "cuEventRecord");
  if (!s.ok()) return s;
  absl::StatusOr<float> ms0 = Elapsed(d, c.event[0], c.event[1]);
  absl::StatusOr<float> ms1 = Elapsed(d, c.event[0], c.event[2]);
  if (!ms0.ok()) return ms0.status();
  if (!ms1.ok()) return ms1.status();
  const float ms = std::max(*ms0, *ms1);
  CopyBandwidth out;
  out.h2d_gbps = *h2d;
  out.d2h_gbps = *d2h;
  out.bidir_gbps = ms > 0 ? 2.0 * static_cast<double>(bytes) * iterations / (ms * 1e-3) / 1e9 : 0;
  return out;
}

}  // namespace nodeprobe::platform
