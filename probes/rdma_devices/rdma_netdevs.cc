#include "probes/rdma_devices/rdma_netdevs.h"

#include <algorithm>
#include <cctype>

#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace nodeprobe::rdma {
namespace {

void AddOnce(std::vector<std::string>* list, const std::string& v) {
  if (!v.empty() && std::find(list->begin(), list->end(), v) == list->end()) list->push_back(v);
}

// "fe80:0000:...:bfa1" or "fe:80:00:...:a1" -> "fe800000...bfa1".
std::string HexDigits(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (isxdigit(static_cast<unsigned char>(c))) out += static_cast<char>(tolower(c));
  }
  return out;
}

// IPoIB interfaces: name -> the port GID its hardware address carries.
std::vector<std::pair<std::string, std::string>> IpoibGids(const platform::FileTree& sys) {
  std::vector<std::pair<std::string, std::string>> out;
  absl::StatusOr<std::vector<std::string>> names = sys.ListDir("class/net");
  if (!names.ok()) return out;
  for (const std::string& n : *names) {
    absl::StatusOr<std::string> type = sys.ReadValue("class/net/" + n + "/type");
    if (!type.ok() || *type != "32") continue;  // ARPHRD_INFINIBAND
    absl::StatusOr<std::string> addr = sys.ReadValue("class/net/" + n + "/address");
    if (!addr.ok()) continue;
    const std::string hex = HexDigits(*addr);
    if (hex.size() != 40) continue;  // 20 bytes
    out.emplace_back(n, hex.substr(8));
  }
  return out;
}

}  // namespace

std::vector<PortNetdevs> NetdevsOfPorts(const std::vector<platform::RawRdmaDevice>& devices,
                                        const platform::FileTree* sys) {
  const auto ipoib = sys ? IpoibGids(*sys) : std::vector<std::pair<std::string, std::string>>();
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
      if (const auto& st = port.attrs.at("state").value; st.ok()) {
        absl::StatusOr<PortState> state = ParsePortState(*st);
        p.active = state.ok() && state->name == "ACTIVE";
      }
      for (const platform::RawGid& gid : port.gids) {
        if (gid.netdev.value.ok()) AddOnce(&p.netdevs, *gid.netdev.value);
        if (gid.gid.value.ok()) AddOnce(&p.ipv4, GidIpv4Address(*gid.gid.value));
        if (gid.gid.value.ok()) {
          for (const auto& [name, port_gid] : ipoib) {
            if (HexDigits(*gid.gid.value) == port_gid) AddOnce(&p.netdevs, name);
          }
        }
      }
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace nodeprobe::rdma
