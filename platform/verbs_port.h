// File: verbs_port.h
// Live queries through libibverbs: what sysfs does not show (active MTU).
#pragma once

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

// True when the rdma-core in use provides ibv_reg_dmabuf_mr (rdma-core 34
// and later), which GPUDirect RDMA over dma-buf needs.
bool VerbsHasDmabufMr();

// Bytes of an ibv_mtu enum value (1=256 … 5=4096); 0 for anything else.
uint32_t IbvMtuToBytes(int ibv_mtu);

}  // namespace nodeprobe::platform
