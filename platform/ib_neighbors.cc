#include "platform/ib_neighbors.h"

#include <cstring>
#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

struct FabricDeleter {
  void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};
using Fabric = std::unique_ptr<ibnd_fabric_t, FabricDeleter>;

}  // namespace

std::vector<IbNeighbor> IbNeighborsOf(const ibnd_fabric_t& fabric) {
  std::vector<IbNeighbor> out;
  const ibnd_node_t* self = fabric.from_node;
  if (self == nullptr || self->ports == nullptr) return out;
  // ports[] is indexed by port number (1..numports; any entry may be null).
  for (int p = 1; p <= self->numports; ++p) {
    const ibnd_port_t* port = self->ports[p];
    if (port == nullptr || port->remoteport == nullptr || port->remoteport->node == nullptr) continue;
    const ibnd_node_t* peer = port->remoteport->node;
    IbNeighbor n;
    n.port = p;
    // nodedesc is IB_SMP_DATA_SIZE + 1 bytes, NUL-terminated by the library;
    // bound the read all the same (a cache file is outside input).
    n.node_desc.assign(peer->nodedesc, strnlen(peer->nodedesc, sizeof(peer->nodedesc)));
    n.node_guid = peer->guid;
    n.remote_port = port->remoteport->portnum;
    n.remote_is_switch = peer->type == IB_NODE_SWITCH;
    out.push_back(std::move(n));
  }
  return out;
}

absl::StatusOr<std::vector<IbNeighbor>> DiscoverIbNeighbors(const std::string& device, int port) {
  ibnd_config_t config = {};
  config.max_hops = 1;  // the switch this port is cabled to, nothing further
  config.timeout_ms = 500;
  config.retries = 2;
  std::string ca = device;  // the API takes a mutable char*
  Fabric fabric(ibnd_discover_fabric(ca.data(), port, nullptr, &config));
  if (fabric == nullptr) {
    return absl::UnavailableError(absl::StrCat(
        "no SMP answer one hop out of ", device, ":", port,
        " (libibnetdisc: needs root and /dev/infiniband/umad*, an ACTIVE port and a subnet "
        "manager)"));
  }
  std::vector<IbNeighbor> all = IbNeighborsOf(*fabric);
  std::vector<IbNeighbor> out;
  for (IbNeighbor& n : all) {
    if (n.port == port) out.push_back(std::move(n));
  }
  return out;
}

absl::StatusOr<std::vector<IbNeighbor>> LoadIbNeighbors(const std::string& cache_file) {
  Fabric fabric(ibnd_load_fabric(cache_file.c_str(), 0));
  if (fabric == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(cache_file, " is not a fabric cache (ibnetdiscover --cache FILE)"));
  }
  return IbNeighborsOf(*fabric);
}

}  // namespace nodeprobe::platform
