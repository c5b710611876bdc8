// File: netlink_links.h
// The network interfaces of the current network namespace, read with libnl
// (rtnetlink): MTU, kind (vlan, macvlan, veth, bond, bridge, ...), the
// lower device (IFLA_LINK) and the master (bond/bridge).
#pragma once

#include <functional>
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

// Sets `name` administratively up or down (RTM_NEWLINK through libnl, as
// `ip link set` does; needs CAP_NET_ADMIN). NOT_FOUND when there is no
// such interface.
absl::Status SetLinkUp(const std::string& name, bool up);
// Taking a link down makes the kernel drop every route through it; only
// the connected ones come back with it. Runs `flap` between a snapshot of
// the IPv4 routes whose nexthop is `name` (all tables; kernel-made ones
// left out) and putting back those that are missing afterwards, so a
// failure test leaves the routing table as it found it. Returns flap's
// status, or the first route that could not be put back.
absl::Status KeepingRoutes(const std::string& name, const std::function<absl::Status()>& flap,
                           int* restored = nullptr);

// Whether `name` is administratively up; NOT_FOUND when absent.
absl::StatusOr<bool> LinkIsUp(const std::string& name);

}  // namespace nodeprobe::platform
