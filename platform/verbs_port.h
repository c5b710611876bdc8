// File: verbs_port.h
// Live queries through libibverbs: what sysfs does not show (active MTU).
#pragma once

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

struct ibv_context;

namespace nodeprobe::platform {

// Opens `device` ("" = the first one). FAILED_PRECONDITION when libibverbs
// lists no such device (no provider loaded, no device). Close with
// ibv_close_device.
absl::StatusOr<ibv_context*> OpenVerbsDevice(const std::string& device);

// Active MTU of `device` port `port` in bytes (256..4096); errors as
// OpenVerbsDevice.
absl::StatusOr<uint32_t> QueryActiveMtu(const std::string& device,
                                        uint32_t port);

// Portable linking: the binary links only rdma-core symbols of version
// IBVERBS_1.1 / RDMACM_1.0, which every rdma-core exports, so it starts on
// any distribution (tests/symbols checks the built binary). Newer entry
// points are looked up at run time by name and version (dlvsym), as NCCL
// does, and are absent rather than fatal on older libraries.

// ibv_reg_dmabuf_mr (IBVERBS_1.12, rdma-core 34 and later), which
// GPUDirect RDMA over dma-buf needs; nullptr when the library lacks it, or
// when NODEPROBE_FORCE_NO_DMABUF is set (to test that path).
using RegDmabufMrFn = ibv_mr* (*)(ibv_pd*, uint64_t offset, size_t length, uint64_t iova,
                                  int fd, int access);
RegDmabufMrFn VerbsRegDmabufMr();
bool VerbsHasDmabufMr();

// ibv_reg_mr_iova2 (IBVERBS_1.8, rdma-core 22 and later): the only entry
// point that takes the optional access flags (IBV_ACCESS_RELAXED_ORDERING;
// the ibv_reg_mr macro calls it for them, which would link IBVERBS_1.8).
// nullptr when the library lacks it or NODEPROBE_FORCE_NO_IOVA2 is set.
using RegMrIova2Fn = ibv_mr* (*)(ibv_pd*, void* addr, size_t length, uint64_t iova,
                                 unsigned int access);
RegMrIova2Fn VerbsRegMrIova2();

// Bytes of an ibv_mtu enum value (1=256 … 5=4096); 0 for anything else.
uint32_t IbvMtuToBytes(int ibv_mtu);

}  // namespace nodeprobe::platform
