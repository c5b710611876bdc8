#include "probes/host_config/host_config_probe.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <bitset>

#include "platform/rdma_sysfs.h"
#include "probes/host_config/host_settings.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe {
namespace {

// The IPv4 addresses, with their prefixes, of the RDMA ports' netdevs on
// this live host (getifaddrs: the kernel's own table).
std::vector<hostcfg::RailAddress> LiveRailAddresses(
    const platform::FileTree& sys, const std::vector<platform::RawRdmaDevice>& devices) {
  std::vector<hostcfg::RailAddress> out;
  std::set<std::string> rails;
  for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(devices, &sys)) {
    rails.insert(p.netdevs.begin(), p.netdevs.end());
  }
  ifaddrs* list = nullptr;
  if (rails.empty() || getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_netmask == nullptr || a->ifa_addr->sa_family != AF_INET ||
        !rails.count(a->ifa_name)) {
      continue;
    }
    char text[INET_ADDRSTRLEN] = {};
    const in_addr ip = reinterpret_cast<const sockaddr_in*>(a->ifa_addr)->sin_addr;
    const uint32_t mask =
        ntohl(reinterpret_cast<const sockaddr_in*>(a->ifa_netmask)->sin_addr.s_addr);
    if (inet_ntop(AF_INET, &ip, text, sizeof(text)) == nullptr) continue;
    out.push_back({a->ifa_name, text, static_cast<int>(std::bitset<32>(mask).count())});
  }
  freeifaddrs(list);
  return out;
}

}  // namespace

absl::StatusOr<v1::ProbeResult> HostConfigProbe::Run(const ProbeContext& ctx) {
  v1::ProbeResult result;
  const platform::FileTree proc(ctx.host.proc_root);
  const platform::FileTree sys(ctx.host.sys_root);
  hostcfg::HostInputs in;
  in.proc = &proc;
  in.sys = &sys;
  in.rails_known = ctx.host.IsLiveSysfs() && !ctx.host.IsCaptured();
  // No RDMA device (or none readable): no rails and no NIC to size.
  in.rdma = platform::ReadRdmaDevices(sys).value_or(std::vector<platform::RawRdmaDevice>{});
  if (in.rails_known) in.rails = LiveRailAddresses(sys, in.rdma);
  const HostRules& rules = ctx.profile->Section<HostRules>();
  if (hostcfg::JudgeHostSettings(in, rules, &result) == 0) {
    result.set_verdict(v1::SKIP);
    result.set_reason(
        rules.Any()
            ? "the profile's host: keys apply to nothing here (no two rails share a subnet, "
              "no GPU or RDMA function to read); the values read are in the evidence"
            : "nothing to judge against: the profile sets no host.* key (`nodeprobe profile "
              "--explain`); the values read are in the evidence");
  }
  return result;
}

}  // namespace nodeprobe
