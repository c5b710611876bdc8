#include "probes/roce_config/roce_config_probe.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "platform/netdev_stats.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/roce_config/roce_settings.h"

namespace nodeprobe {
namespace {

// The DCB state of `netdev`: from the kernel on the live host, from the
// capture's saved replies otherwise (never this machine's for a capture).
absl::StatusOr<platform::DcbState> DcbOf(const platform::HostPaths& host, bool live,
                                         const std::string& netdev) {
  if (live) return platform::ReadDcb(netdev);
  if (host.dcbnl_root.empty()) {
    return absl::NotFoundError("DCB was not captured (a capture's dcbnl/ holds it)");
  }
  const platform::FileTree dir(host.dcbnl_root);
  absl::StatusOr<std::string> ieee = dir.ReadBytes(netdev + ".ieee", 64 * 1024);
  if (!ieee.ok()) {
    return absl::NotFoundError(
        absl::StrCat("DCB of ", netdev, " was not captured (", dir.Path(netdev + ".ieee"), ")"));
  }
  absl::StatusOr<std::string> dcbx = dir.ReadBytes(netdev + ".dcbx", 64 * 1024);
  return platform::ParseDcbReplies(netdev, *ieee, dcbx.ok() ? *dcbx : "");
}

// Every RoCE port with the netdevs that carry it, read.
std::vector<roce::RocePort> ReadPorts(const ProbeContext& ctx, const platform::FileTree& sys,
                                      const std::vector<rdma::PortNetdevs>& ports) {
  const bool live = ctx.host.IsLiveSysfs() && !ctx.host.IsCaptured();
  std::vector<roce::RocePort> out;
  for (const rdma::PortNetdevs& p : ports) {
    if (p.link_layer != "Ethernet") continue;
    if (p.netdevs.empty()) {
      roce::RocePort port;
      port.device = p.device;
      port.port = p.port;
      port.dcb = absl::NotFoundError("no netdev carries this RoCE port (no GID names one)");
      out.push_back(std::move(port));
      continue;
    }
    absl::StatusOr<std::vector<std::string>> carriers = roce::CarrierNetdevs(sys, p.netdevs.front());
    if (!carriers.ok()) {
      // The port is there; what carries it is not known: said, not hidden.
      roce::RocePort port;
      port.device = p.device;
      port.port = p.port;
      port.netdev = p.netdevs.front();
      port.carrier_why = std::string(carriers.status().message());
      out.push_back(std::move(port));
      continue;
    }
    for (const std::string& carrier : *carriers) {
      roce::RocePort port;
      port.device = p.device;
      port.port = p.port;
      port.netdev = carrier;
      port.dcb = DcbOf(ctx.host, live, carrier);
      roce::ReadSysfsSettings(sys, &port);
      // Only root may make rdma_cm's configfs group; others read what exists.
      roce::ReadRdmaCmDefaults(sys, live && geteuid() == 0, &port);
      if (live) {
        if (auto stats = platform::EthtoolStatistics(carrier); stats.ok()) {
          for (const auto& [name, n] : *stats) {
            if (name.find("pause_storm") != std::string::npos) port.storm[name] = n;
          }
        }
      }
      out.push_back(std::move(port));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<v1::ProbeResult> RoceConfigProbe::Run(const ProbeContext& ctx) {
  const platform::FileTree sys(ctx.host.sys_root);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devices = platform::ReadRdmaDevices(sys);
  if (!devices.ok()) {
    return SkipResult(name(), absl::StrCat("no RDMA device to read: ", devices.status().message()));
  }
  const std::vector<roce::RocePort> ports =
      ReadPorts(ctx, sys, rdma::NetdevsOfPorts(*devices, &sys));
  if (ports.empty()) {
    return SkipResult(name(),
                      "no RoCE port on this host (no RDMA device, or InfiniBand ports "
                      "only): no congestion configuration to read");
  }
  v1::ProbeResult result;
  std::string tos_source;
  const std::optional<int> tos = DesignedTos(*ctx.profile, &tos_source);
  int judged = 0;
  for (const roce::RocePort& port : ports) {
    judged +=
        roce::JudgeRocePort(port, ctx.profile->Section<RoceDesign>(), tos, tos_source, &result);
    roce::AddRoceSettings(port, result.mutable_config());
  }
  if (judged == 0) {
    result.set_verdict(v1::SKIP);
    result.set_reason(
        "nothing to judge against: the profile sets no roce.* key (`nodeprobe profile "
        "--explain`); the values read are in the evidence and the fleet's configuration "
        "matrix");
  }
  return result;
}

}  // namespace nodeprobe
