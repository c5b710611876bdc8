// File: lldp_neighbors.h
// The LLDP neighbours the node's own lldpd has heard, read through its
// control socket with liblldpctl (Debian's lldpd / liblldpctl-dev): which
// switch and port each interface is cabled to. lldpd keeps the table, so
// the read is instant; nodeprobe never sends LLDP itself.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

// One end of a cable as the node sees it: from LLDP (Ethernet/RoCE, here)
// or from the fabric's SMPs (InfiniBand, platform/ib_neighbors.h).
struct CableNeighbor {
  std::string interface;    // local netdev, or "device:port" for IB
  std::string system_name;  // the neighbour's SysName (IB: the switch name)
  std::string port_id;
  std::string port_descr;
  std::string chassis_id;
  std::string source = "lldp";  // "lldp" or "ib-smp"
};

// lldpd's socket: $NODEPROBE_LLDPD_SOCKET, else liblldpctl's default
// (/run/lldpd.socket).
std::string LldpdSocket();

// Every neighbour of every interface lldpd watches. UNAVAILABLE naming the
// socket when lldpd is not running (or not reachable).
absl::StatusOr<std::vector<CableNeighbor>> ReadLldpNeighbors(const std::string& socket);

}  // namespace nodeprobe::platform
