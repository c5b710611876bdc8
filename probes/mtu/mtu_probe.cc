#include "probes/mtu/mtu_probe.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/netlink_links.h"
#include "platform/rdma_sysfs.h"
#include "platform/verbs_port.h"
#include "probes/framework/result_util.h"
#include "probes/mtu/mtu_chain.h"
#include "probes/mtu/mtu_findings.h"
#include "probes/mtu/mtu_profile.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> MtuProbe::Run(const ProbeContext& ctx) {
  v1::ProbeResult result;
  platform::FileTree sys(ctx.host.sys_root);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> rdma = platform::ReadRdmaDevices(sys);
  if (!rdma.ok()) return rdma.status();

  // Interfaces to check, with the RoCE active MTU where one runs over them.
  std::map<std::string, std::optional<int>> ifaces;
  for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(*rdma)) {
    std::optional<int> active;  // asked once per port, live hosts only
    if (p.link_layer == "Ethernet" && !p.netdevs.empty() && ctx.host.IsLiveSysfs()) {
      absl::StatusOr<uint32_t> mtu = platform::QueryActiveMtu(p.device, p.port);
      if (mtu.ok()) active = static_cast<int>(*mtu);
    }
    for (const std::string& n : p.netdevs) ifaces[n] = active;
  }
  for (const platform::RawRdmaDevice& dev : *rdma) {
    // IPoIB and RoCE netdevs of the device's PCI function.
    const std::string net = absl::StrCat("class/infiniband/", dev.name, "/device/net");
    if (auto names = sys.ListDir(net); names.ok()) {
      for (const std::string& n : *names) ifaces.emplace(n, std::nullopt);
    }
  }
  for (const std::string& n : ctx.profile->Section<MtuExpectations>().interfaces)
    ifaces.emplace(n, std::nullopt);
  if (ifaces.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason("no RDMA-backed netdev and no interface named in the profile (mtu.interfaces)");
    return result;
  }
  if (!ctx.host.IsLiveSysfs()) {
    result.set_verdict(v1::SKIP);
    result.set_reason(absl::StrCat("interface chains come from the live network namespace; ",
                                   ctx.host.sys_root, " is a captured tree"));
    return result;
  }
  absl::StatusOr<std::vector<platform::NetLink>> links = platform::ReadLinks();
  if (!links.ok()) return links.status();
  v1::MtuReport* report = result.mutable_mtu();
  for (const auto& [iface, roce_mtu] : ifaces) {
    v1::InterfaceChain chain = mtu::BuildChain(*links, iface, sys);
    mtu::JudgeChain(chain, ctx.profile->Section<MtuExpectations>().expected, roce_mtu, &result);
    if (chain.elements_size() > 0) {
      AddMeasurement(&result, "interface_mtu", chain.elements(0).mtu(), "bytes",
                     {{"interface", iface}});
    }
    *report->add_chains() = std::move(chain);
  }
  return result;
}

void JudgePath(const v1::MtuReport& report, v1::ProbeResult* result) {
  for (const v1::PathMtu& p : report.paths()) {
    AddMeasurement(result, "path_mtu", p.path_mtu(), "bytes", {{"direction", p.direction()}});
    if (p.path_mtu() == 0) {
      AddFinding(
          result, findings::kMtuPathUnreachable.code, report.peer(),
          absl::StrCat(p.direction(), ": not even ", 576, "-byte packets with DF set arrive"));
      continue;
    }
    if (p.path_mtu() >= p.iface_mtu()) continue;
    if (p.blackhole()) {
      AddFinding(result, findings::kMtuPathBlackhole.code, report.peer(),
                 absl::StrCat(p.direction(), ": packets above ", p.path_mtu(),
                              " bytes vanish without an ICMP error although the interface "
                              "sends up to ",
                              p.iface_mtu(), ": large transfers will stall"));
    } else {
      AddFinding(result, findings::kMtuPathSmallerThanIface.code, report.peer(),
                 absl::StrCat(p.direction(), ": interface MTU ", p.iface_mtu(),
                              ", measured path MTU ", p.path_mtu(),
                              p.limiting_hop().empty()
                                  ? ""
                                  : absl::StrCat(" (", p.limiting_hop(), " reports next-hop MTU ",
                                                 p.icmp_mtu(), ")")));
    }
  }
  for (const v1::PathMtu& p : report.paths()) {
    if (p.direction() != "here -> peer" || report.peer_iface_mtu() == 0) continue;
    // The search caps at 65535 (an IPv4 packet's 16-bit length), while lo
    // and some virtual links report 65536: equal as far as IP can tell.
    const uint32_t here = std::min<uint32_t>(p.iface_mtu(), 65535);
    const uint32_t peer = std::min<uint32_t>(report.peer_iface_mtu(), 65535);
    if (here != peer) {
      AddFinding(result, findings::kMtuPeersDiffer.code, report.peer(),
                 absl::StrCat("interface MTU here (", report.egress_interface(), ") is ",
                              p.iface_mtu(), ", the peer's is ", report.peer_iface_mtu()));
    }
  }
  if (report.local_rdma_active_mtu() && report.peer_rdma_active_mtu() &&
      report.local_rdma_active_mtu() != report.peer_rdma_active_mtu()) {
    AddFinding(
        result, findings::kRdmaMtuMismatch.code, report.peer(),
        absl::StrCat("RDMA active MTU here is ", report.local_rdma_active_mtu(), ", the peer's is ",
                     report.peer_rdma_active_mtu(), " (NCCL hangs or IBV_WC_LOC_LEN_ERR follow)"));
  }
}

v1::ProbeResult ProbePath(const mtu::PathProbeOptions& options) {
  absl::StatusOr<v1::MtuReport> report = mtu::MeasurePathMtu(options);
  if (!report.ok()) {
    return ErrorResult("mtu",
                       report.status().code() == absl::StatusCode::kDeadlineExceeded
                           ? findings::kMtuProbeTimeout.code
                           : findings::kMtuProbeFailed.code,
                       std::string(report.status().message()));
  }
  v1::ProbeResult result;
  result.set_probe("mtu");
  *result.mutable_mtu() = *report;
  JudgePath(*report, &result);
  return result;
}

}  // namespace nodeprobe
