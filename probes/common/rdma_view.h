// File: rdma_view.h
// The RDMA devices a job sees, as the pre-flight probes judge them: each
// device's ports, whether ACTIVE and RoCE, and their GIDs' kind (RoCE v2,
// IPv4-mapped), read from class/infiniband under the host's sysfs root.
#pragma once

#include <string>
#include <vector>

#include "platform/host_paths.h"

namespace nodeprobe::rdma_view {

struct Gid {
  int index = 0;
  bool roce_v2 = false;
  bool ipv4 = false;
};
struct Port {
  int port = 0;
  bool active = false;
  bool ethernet = false;  // RoCE
  std::vector<Gid> gids;
  std::vector<int> pkeys;  // the non-zero entries of pkeys/, membership bit included
};
struct Device {
  std::string name;
  std::vector<Port> ports;
};

// Sorted by name; none when class/infiniband is absent or unreadable.
std::vector<Device> DevicesHere(const platform::HostPaths& host);

}  // namespace nodeprobe::rdma_view
