// File: rdma_netdevs.h
// Each RDMA port with the network interfaces its GIDs name and the IPv4
// addresses they carry: what ties a RoCE port to the netdev (and rail IP)
// the agent registers, the MTU probe checks, and the MTU responder reports.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"

namespace nodeprobe::rdma {

struct PortNetdevs {
  std::string device;
  uint32_t port = 0;
  std::string link_layer;  // "" when unreadable
  double rate_gbps = 0;    // 0 when unreadable
  bool active = false;     // state ACTIVE
  std::vector<std::string> netdevs;  // distinct: RoCE GIDs' netdevs, then IPoIB
  std::vector<std::string> ipv4;     // distinct, from IPv4-mapped GIDs
};

// With `sys`, InfiniBand ports also get their IPoIB interfaces: a netdev
// of type 32 (ARPHRD_INFINIBAND) whose 20-byte hardware address ends in
// the port's GID (the last 16 bytes of an IPoIB address are the port GID).
std::vector<PortNetdevs> NetdevsOfPorts(const std::vector<platform::RawRdmaDevice>& devices,
                                        const platform::FileTree* sys = nullptr);

}  // namespace nodeprobe::rdma
