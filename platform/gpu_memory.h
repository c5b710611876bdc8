// File: gpu_memory.h
// GPU memory for RDMA transfers (GPUDirect RDMA), through the CUDA driver
// API loaded with dlopen: nothing links CUDA, and only the transfer child
// process ever loads it (never the agent). Registration prefers dma-buf
// (cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr) and falls back to
// ibv_reg_mr on the device pointer, which needs nvidia_peermem.
#pragma once

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

class GpuMemory {
 public:
  // `bytes` of device memory on GPU `device`; FAILED_PRECONDITION when there
  // is no driver or no such GPU.
  static absl::StatusOr<std::unique_ptr<GpuMemory>> Allocate(int device, size_t bytes);
  ~GpuMemory();

  uint64_t address() const { return ptr_; }
  size_t size() const { return size_; }
  // A dma-buf file descriptor for the whole allocation (closed by the
  // caller), or FAILED_PRECONDITION when the driver cannot export one
  // (proprietary kernel module, CUDA < 11.7).
  absl::StatusOr<int> DmaBufFd() const;

 private:
  GpuMemory() = default;
  int device_ = 0;
  uint64_t ptr_ = 0;
  size_t size_ = 0;
};

}  // namespace nodeprobe::platform
