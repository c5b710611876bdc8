// File: gpu_memory.h
// GPU memory for RDMA transfers (GPUDirect RDMA), through the CUDA driver
// API loaded with dlopen: nothing links CUDA, and only the transfer child
// process ever loads it (never the agent). Registration prefers dma-buf
// (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr) and falls back to
// ibv_reg_mr on the device pointer, which needs nvidia_peermem.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// The range CUDA exports as a dma-buf must start and end on host page
// boundaries (cuMemGetHandleForAddressRange); the MR is then registered at
// `offset` into it, as perftest and NCCL do.
struct DmaBufRange {
  uint64_t base = 0;
  size_t size = 0;
  uint64_t offset = 0;  // ptr - base
};
DmaBufRange AlignForDmaBuf(uint64_t ptr, size_t size, size_t page);
// What to allocate so the aligned range stays inside the allocation.
size_t RoundUpToPage(size_t size, size_t page);

class GpuMemory {
 public:
  // `bytes` of device memory on GPU `device`; FAILED_PRECONDITION when there
  // is no driver or no such GPU.
  static absl::StatusOr<std::unique_ptr<GpuMemory>> Allocate(int device, size_t bytes);
  // The CUDA ordinal of the GPU at PCI address `bus_id` ("0000:3b:00.0"),
  // whatever CUDA_DEVICE_ORDER says.
  static absl::StatusOr<int> OrdinalOfPciBus(const std::string& bus_id);
  ~GpuMemory();

  uint64_t address() const { return ptr_; }
  size_t size() const { return size_; }
  // A dma-buf file descriptor for the page-aligned range around the
  // allocation (closed by the caller; register at range().offset), or
  // FAILED_PRECONDITION saying why not: CUDA < 11.7, or the device reports
  // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 0 (proprietary kernel module).
  absl::StatusOr<int> DmaBufFd() const;
  DmaBufRange range() const;

 private:
  GpuMemory() = default;
  int device_ = 0;
  uint64_t ptr_ = 0;
  size_t size_ = 0;
};

// Host <-> device copy bandwidth from pinned host memory, in GB/s (10^9
// bytes per second), timed with CUDA events on the copy streams: H2D, D2H,
// and both at once on two streams (bidirectional: the sum of both).
struct CopyBandwidth {
  double h2d_gbps = 0;
  double d2h_gbps = 0;
  double bidir_gbps = 0;
};
// The PCI address of each CUDA device, in CUDA ordinal order
// (FAILED_PRECONDITION without a driver).
absl::StatusOr<std::vector<std::string>> CudaDeviceBusIds();
// `iterations` copies of `bytes` each way after one warm-up copy.
absl::StatusOr<CopyBandwidth> MeasureCopyBandwidth(int device, size_t bytes, int iterations);

}  // namespace nodeprobe::platform
