// File: ib_neighbors.h
// What each InfiniBand port is cabled to, from the fabric itself: rdma-core's
// libibnetdisc (Debian's libibnetdisc-dev) sends subnet management packets
// one hop out of a local port and reads the neighbour's NodeDescription
// (a switch's is its name, e.g. "MF0;leaf-rail-0-a:MQM9700/U1"), node GUID
// and port number. IB has no LLDP; this is the cabling record's IB half.
// Needs the port's umad device (/dev/infiniband/umad*, root).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <infiniband/ibnetdisc.h>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

struct IbNeighbor {
  int port = 0;             // the local port
  std::string node_desc;    // the neighbour's NodeDescription
  uint64_t node_guid = 0;
  int remote_port = 0;      // the neighbour's port the cable ends in
  bool remote_is_switch = false;
};

// The neighbours of the node the fabric was discovered from (its ports
// with a remote end), in port order. A pure walk of the structure, so the
// decoding is tested without a fabric.
std::vector<IbNeighbor> IbNeighborsOf(const ibnd_fabric_t& fabric);

// Discovers one hop out of DEVICE's PORT and returns that port's
// neighbour(s). UNAVAILABLE naming the device when the SMPs fail (no umad
// access, port down, no subnet manager answering).
absl::StatusOr<std::vector<IbNeighbor>> DiscoverIbNeighbors(const std::string& device, int port);

// The same from a fabric cache written by `ibnetdiscover --cache FILE` on a
// node (its own ports' neighbours): captured fabrics for tests and hwtests.
absl::StatusOr<std::vector<IbNeighbor>> LoadIbNeighbors(const std::string& cache_file);

}  // namespace nodeprobe::platform
