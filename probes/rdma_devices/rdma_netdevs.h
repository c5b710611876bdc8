// File: rdma_netdevs.h
// Each RDMA port with the network interfaces its GIDs name and the IPv4
// addresses they carry: what ties a RoCE port to the netdev (and rail IP)
// the agent registers, the MTU probe checks, and the MTU responder reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/rdma_sysfs.h"

namespace nodeprobe::rdma {

struct PortNetdevs {
  std::string device;
  uint32_t port = 0;
  std::string link_layer;  // "" when unreadable
  double rate_gbps = 0;    // 0 when unreadable
  std::vector<std::string> netdevs;  // distinct, in GID order
  std::vector<std::string> ipv4;     // distinct, from IPv4-mapped GIDs
};

std::vector<PortNetdevs> NetdevsOfPorts(const std::vector<platform::RawRdmaDevice>& devices);

}  // namespace nodeprobe::rdma
