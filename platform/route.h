// File: route.h
// Which local interface and address the kernel would use to reach a peer:
// a connected UDP socket asks the routing table without sending anything,
// and getifaddrs maps the source address to its interface.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

struct Egress {
  std::string source_ip;
  std::string netdev;
  std::vector<std::string> netdev_ipv4;  // every IPv4 address on netdev
};

absl::StatusOr<Egress> EgressTo(const std::string& peer_ip);
// Every IPv4 address on `netdev` (its alias labels included).
std::vector<std::string> Ipv4AddressesOf(const std::string& netdev);
// The interface that holds `local_ip` (a server's side of a connection);
// an alias label ("eth0:1") is reported as its interface.
absl::StatusOr<Egress> InterfaceOf(const std::string& local_ip);

}  // namespace nodeprobe::platform
