// File: verbs_port.h
// Live queries through libibverbs: what sysfs does not show (active MTU).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// Active MTU of `device` port `port` in bytes (256..4096). NOT_FOUND when the
// device is not known to libibverbs (no provider loaded, no such device).
absl::StatusOr<uint32_t> QueryActiveMtu(const std::string& device,
                                        uint32_t port);

// True when the rdma-core in use provides ibv_reg_dmabuf_mr (rdma-core 34
// and later), which GPUDirect RDMA over dma-buf needs.
bool VerbsHasDmabufMr();

// Bytes of an ibv_mtu enum value (1=256 … 5=4096); 0 for anything else.
uint32_t IbvMtuToBytes(int ibv_mtu);

}  // namespace nodeprobe::platform
