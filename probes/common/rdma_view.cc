#include "probes/common/rdma_view.h"

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe::rdma_view {
namespace {

std::string Attr(const std::map<std::string, platform::RawAttr>& attrs, const char* name) {
  auto it = attrs.find(name);
  return it != attrs.end() && it->second.value.ok() ? *it->second.value : "";
}

// The rdma-devices probe's parsers (rdma_sysfs_parser.h): one reading of
// what the kernel writes.
bool Active(const std::string& state) {
  absl::StatusOr<rdma::PortState> s = rdma::ParsePortState(state);
  return s.ok() && s->name == "ACTIVE";
}

// The PKey table (pkeys/0..N, "0xffff"; unused slots read 0x0000).
std::vector<int> PKeys(const platform::FileTree& sys, const std::string& port_dir) {
  std::vector<int> out;
  for (const std::string& n :
       sys.ListDir(port_dir + "/pkeys").value_or(std::vector<std::string>{})) {
    absl::StatusOr<std::string> v = sys.ReadValue(port_dir + "/pkeys/" + n);
    unsigned pkey = 0;
    if (v.ok() && absl::SimpleHexAtoi(*v, &pkey) && pkey != 0)
      out.push_back(static_cast<int>(pkey));
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<Device> DevicesHere(const platform::HostPaths& host) {
  std::vector<Device> out;
  const platform::FileTree sys(host.sys_root);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> raw = platform::ReadRdmaDevices(sys);
  if (!raw.ok()) return out;
  for (const platform::RawRdmaDevice& d : *raw) {
    Device dev;
    dev.name = d.name;
    for (const platform::RawRdmaPort& p : d.ports) {
      Port port;
      port.port = static_cast<int>(p.port);
      port.active = Active(Attr(p.attrs, "state"));
      port.ethernet = rdma::ParseLinkLayer(Attr(p.attrs, "link_layer")).value_or("") == "Ethernet";
      for (const platform::RawGid& g : p.gids) {
        Gid gid;
        gid.index = static_cast<int>(g.index);
        gid.roce_v2 = g.type.value.ok() &&
                      rdma::ParseGidType(*g.type.value).value_or(rdma::GidType::kIbRoceV1) ==
                          rdma::GidType::kRoceV2;
        gid.ipv4 = g.gid.value.ok() && !rdma::GidIpv4Address(*g.gid.value).empty();
        port.gids.push_back(gid);
      }
      port.pkeys = PKeys(sys, absl::StrCat("class/infiniband/", d.name, "/ports/", p.port));
      dev.ports.push_back(std::move(port));
    }
    out.push_back(std::move(dev));
  }
  return out;
}

}  // namespace nodeprobe::rdma_view
