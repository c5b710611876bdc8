// File: rdma_netlink.h
// The kernel RDMA subsystem's own settings through RDMA netlink (the
// NLDEV client `rdma system` uses): its network-namespace mode. In
// "shared" mode every namespace sees every RDMA device; in "exclusive"
// mode a device is seen only in the namespace it was moved to (what an
// SR-IOV pod needs, and why a pod can see a VF's netdev but no RDMA
// device: tests/fixtures/pod-rdma/spiderpool-rdma-system-netns-*).
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// "shared" or "exclusive"; UNAVAILABLE when the kernel has no RDMA netlink
// (no ib_core loaded) or does not answer within a few seconds.
absl::StatusOr<std::string> ReadRdmaNetnsMode();

// The mode in an RDMA_NLDEV_CMD_SYS_GET reply (the whole netlink message).
absl::StatusOr<std::string> ParseRdmaSysReply(const std::string& reply);

// ib_core's netns_mode values: 1 shared, 0 exclusive.
std::string NetnsModeName(uint8_t mode);

}  // namespace nodeprobe::platform
