// File: rdma_view.cc
#include "probes/common/rdma_view.h"

#include <map>

#include "absl/strings/match.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"

namespace nodeprobe::rdma_view {
namespace {

std::string Attr(const std::map<std::string, platform::RawAttr>& attrs, const char* name) {
  auto it = attrs.find(name);
  return it != attrs.end() && it->second.value.ok() ? *it->second.value : "";
}

}  // namespace

std::vector<Device> DevicesHere(const platform::HostPaths& host) {
  std::vector<Device> out;
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> raw =
      platform::ReadRdmaDevices(platform::FileTree(host.sys_root));
  if (!raw.ok()) return out;
  for (const platform::RawRdmaDevice& d : *raw) {
    Device dev;
    dev.name = d.name;
    for (const platform::RawRdmaPort& p : d.ports) {
      Port port;
      port.port = static_cast<int>(p.port);
      port.active = absl::StrContains(Attr(p.attrs, "state"), "ACTIVE");
      port.ethernet = Attr(p.attrs, "link_layer") == "Ethernet";
      for (const platform::RawGid& g : p.gids) {
        Gid gid;
        gid.index = static_cast<int>(g.index);
        gid.roce_v2 = g.type.value.ok() && absl::StrContains(*g.type.value, "v2");
        gid.ipv4 =
            g.gid.value.ok() && absl::StartsWith(*g.gid.value, "0000:0000:0000:0000:0000:ffff:");
        port.gids.push_back(gid);
      }
      dev.ports.push_back(std::move(port));
    }
    out.push_back(std::move(dev));
  }
  return out;
}

}  // namespace nodeprobe::rdma_view
