// File: rdma_netdevs.cc
#include "probes/rdma_devices/rdma_netdevs.h"

#include <algorithm>

#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe::rdma {
namespace {

void AddOnce(std::vector<std::string>* list, const std::string& v) {
  if (!v.empty() && std::find(list->begin(), list->end(), v) == list->end()) list->push_back(v);
}

}  // namespace

std::vector<PortNetdevs> NetdevsOfPorts(const std::vector<platform::RawRdmaDevice>& devices) {
  std::vector<PortNetdevs> out;
  for (const platform::RawRdmaDevice& dev : devices) {
    for (const platform::RawRdmaPort& port : dev.ports) {
      PortNetdevs p;
      p.device = dev.name;
      p.port = port.port;
      if (const auto& ll = port.attrs.at("link_layer").value; ll.ok()) p.link_layer = *ll;
      if (const auto& rate = port.attrs.at("rate").value; rate.ok()) {
        if (absl::StatusOr<double> gbps = ParseRateGbps(*rate); gbps.ok()) p.rate_gbps = *gbps;
      }
      for (const platform::RawGid& gid : port.gids) {
        if (gid.netdev.value.ok()) AddOnce(&p.netdevs, *gid.netdev.value);
        if (gid.gid.value.ok()) AddOnce(&p.ipv4, GidIpv4Address(*gid.gid.value));
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace nodeprobe::rdma
