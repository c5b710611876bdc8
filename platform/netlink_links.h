// File: netlink_links.h
// The network interfaces of the current network namespace, read with libnl
// (rtnetlink): MTU, kind (vlan, macvlan, veth, bond, bridge, ...), the
// lower device (IFLA_LINK) and the master (bond/bridge).
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

struct NetLink {
  int ifindex = 0;
  std::string name;
  int mtu = 0;
  std::string kind;     // "" for a physical device
  int link_ifindex = 0;  // lower device; 0 when none
  // True when link_ifindex names a device in another namespace (a veth
  // peer elsewhere), so it cannot be looked up here.
  bool link_elsewhere = false;
  int master_ifindex = 0;  // bond or bridge; 0 when none
  bool up = false;
};

absl::StatusOr<std::vector<NetLink>> ReadLinks();

}  // namespace nodeprobe::platform
