#include "probes/cabling/cabling_probe.h"

#include <fnmatch.h>

#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "probes/cabling/cabling_findings.h"
#include "probes/cabling/cabling_profile.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe {
namespace {

// Plan keys name a netdev ("ens1f0np0") or an InfiniBand port ("mlx5_0:1").
bool IsIbPortKey(const std::string& key) { return key.find(':') != std::string::npos; }

std::string Where(const v1::CablingLink& l) {
  std::string port = l.neighbor_port_descr().empty() ? l.neighbor_port() : l.neighbor_port_descr();
  return absl::StrCat(l.neighbor_system().empty() ? "(no system name)" : l.neighbor_system(),
                      " port ", port.empty() ? "?" : port);
}

}  // namespace

v1::ProbeResult JudgeCabling(const std::vector<platform::CableNeighbor>& neighbors,
                             const std::vector<std::pair<std::string, std::string>>& expect,
                             const std::map<std::string, std::string>& rdma_ports,
                             const std::string& profile_source) {
  v1::ProbeResult result;
  result.set_probe("cabling");
  v1::CablingReport* report = result.mutable_cabling();
  std::map<std::string, std::string> plan(expect.begin(), expect.end());
  for (const platform::CableNeighbor& n : neighbors) {
    v1::CablingLink* l = report->add_links();
    l->set_interface(n.interface);
    if (auto it = rdma_ports.find(n.interface); it != rdma_ports.end()) {
      l->set_rdma_device(it->second);
    }
    l->set_source(n.source);
    l->set_neighbor_system(n.system_name);
    l->set_neighbor_port(n.port_id);
    l->set_neighbor_port_descr(n.port_descr);
    l->set_neighbor_chassis(n.chassis_id);
    AddEvidence(&result, absl::StrCat("cabling.", n.interface), Where(*l));
    auto want = plan.find(n.interface);
    if (want == plan.end()) continue;
    l->set_expected(want->second);
    if (fnmatch(want->second.c_str(), n.system_name.c_str(), 0) != 0) {
      AddFinding(
          &result, findings::kCablingRailMismatch.code, n.interface,
          absl::StrCat(n.interface, l->rdma_device().empty() ? "" : " (" + l->rdma_device() + ")",
                       " is cabled to ", Where(*l), "; the rail plan (", profile_source,
                       ") expects a switch matching \"", want->second, "\""));
    }
  }
  for (const auto& [iface, pattern] : expect) {
    bool heard = false;
    for (const platform::CableNeighbor& n : neighbors) heard |= n.interface == iface;
    if (heard) continue;
    AddFinding(&result, findings::kCablingNoNeighbor.code, iface,
               absl::StrCat("the rail plan expects ", iface, " to reach a switch matching \"",
                            pattern, "\", but ",
                            IsIbPortKey(iface) ? "no switch answered one hop out of that port"
                                               : "lldpd heard no LLDP neighbour on it"));
  }
  if (report->links_size() == 0 && expect.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason("lldpd heard no LLDP neighbour on any interface");
  }
  return result;
}

std::string IbSwitchName(const std::string& node_desc) {
  // NVIDIA/Mellanox switches describe themselves "MF0;<name>:<model>/U1";
  // anything else is taken whole.
  const size_t semi = node_desc.find(';');
  if (semi == std::string::npos) return node_desc;
  const size_t colon = node_desc.find(':', semi);
  if (colon == std::string::npos) return node_desc;
  return node_desc.substr(semi + 1, colon - semi - 1);
}

std::vector<platform::CableNeighbor> IbCableNeighbors(const std::vector<rdma::PortNetdevs>& ports,
                                                     const IbDiscover& discover) {
  std::vector<platform::CableNeighbor> out;
  for (const rdma::PortNetdevs& p : ports) {
    // Only live InfiniBand ports: Ethernet (RoCE) ports have LLDP, and a
    // port that is down has no one to ask.
    if (p.link_layer != "InfiniBand" || !p.active) continue;
    absl::StatusOr<std::vector<platform::IbNeighbor>> found =
        discover(p.device, static_cast<int>(p.port));
    if (!found.ok()) continue;  // a planned port says so: CABLING_NO_NEIGHBOR
    for (const platform::IbNeighbor& n : *found) {
      platform::CableNeighbor c;
      c.interface = absl::StrCat(p.device, ":", p.port);
      c.system_name = IbSwitchName(n.node_desc);
      c.port_id = absl::StrCat(n.remote_port);
      // A switch port has no description of its own in IB: the record's
      // "port" is its number (the NodeDescription went into the name).
      c.chassis_id = absl::StrCat("guid 0x", absl::Hex(n.node_guid, absl::kZeroPad16));
      c.source = "ib-smp";
      out.push_back(std::move(c));
    }
  }
  return out;
}

absl::StatusOr<v1::ProbeResult> CablingProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured() || !ctx.host.topology_xml.empty()) {
    return SkipResult("cabling", "the cabling record is read on the live host only (lldpd)");
  }
  // Each RDMA port's link layer, state and netdevs: the IB ports to ask the
  // fabric about, and the RDMA port behind each LLDP interface.
  const platform::FileTree sys(ctx.host.sys_root);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  const std::vector<rdma::PortNetdevs> ports =
      devs.ok() ? rdma::NetdevsOfPorts(*devs, &sys) : std::vector<rdma::PortNetdevs>{};
  std::vector<platform::CableNeighbor> ib = IbCableNeighbors(ports);
  bool plan_names_netdevs = false;
  for (const auto& [key, pattern] : ctx.profile->Section<CablingPlan>().expect) {
    plan_names_netdevs |= !IsIbPortKey(key);
  }
  const std::string socket = platform::LldpdSocket();
  absl::StatusOr<std::vector<platform::CableNeighbor>> neighbors =
      platform::ReadLldpNeighbors(socket);
  if (!neighbors.ok() && !plan_names_netdevs &&
      (!ib.empty() || !ctx.profile->Section<CablingPlan>().expect.empty())) {
    // InfiniBand alone needs no lldpd: judge what the fabric said.
    neighbors = std::vector<platform::CableNeighbor>{};
  }
  if (!neighbors.ok()) {
    if (ctx.profile->Section<CablingPlan>().expect.empty()) {
      return SkipResult("cabling", absl::StrCat("no cabling record: ", neighbors.status().message(),
                                                "; install and start lldpd on the node"));
    }
    v1::ProbeResult r;
    r.set_probe("cabling");
    AddFinding(
        &r, findings::kCablingNoLldpd.code, "",
        absl::StrCat("the profile has a rail plan to check, but ", neighbors.status().message()));
    return r;
  }
  neighbors->insert(neighbors->end(), ib.begin(), ib.end());
  std::map<std::string, std::string> rdma_ports;
  for (const rdma::PortNetdevs& p : ports) {
    for (const std::string& nd : p.netdevs) rdma_ports[nd] = absl::StrCat(p.device, ":", p.port);
  }
  v1::ProbeResult r = JudgeCabling(*neighbors, ctx.profile->Section<CablingPlan>().expect,
                                   rdma_ports, ctx.profile->source);
  r.mutable_cabling()->set_lldpd_socket(socket);
  return r;
}

}  // namespace nodeprobe
