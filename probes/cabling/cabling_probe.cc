// File: cabling_probe.cc
#include "probes/cabling/cabling_probe.h"

#include <fnmatch.h>

#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe {
namespace {

std::string Where(const v1::CablingLink& l) {
  std::string port = l.neighbor_port_descr().empty() ? l.neighbor_port() : l.neighbor_port_descr();
  return absl::StrCat(l.neighbor_system().empty() ? "(no system name)" : l.neighbor_system(),
                      " port ", port.empty() ? "?" : port);
}

}  // namespace

v1::ProbeResult JudgeCabling(const std::vector<platform::LldpNeighbor>& neighbors,
                             const std::vector<std::pair<std::string, std::string>>& expect,
                             const std::map<std::string, std::string>& rdma_ports,
                             const std::string& profile_source) {
  v1::ProbeResult result;
  result.set_probe("cabling");
  v1::CablingReport* report = result.mutable_cabling();
  std::map<std::string, std::string> plan(expect.begin(), expect.end());
  for (const platform::LldpNeighbor& n : neighbors) {
    v1::CablingLink* l = report->add_links();
    l->set_interface(n.interface);
    if (auto it = rdma_ports.find(n.interface); it != rdma_ports.end()) {
      l->set_rdma_device(it->second);
    }
    l->set_source("lldp");
    l->set_neighbor_system(n.system_name);
    l->set_neighbor_port(n.port_id);
    l->set_neighbor_port_descr(n.port_descr);
    l->set_neighbor_chassis(n.chassis_id);
    AddEvidence(&result, absl::StrCat("cabling.", n.interface), Where(*l));
    auto want = plan.find(n.interface);
    if (want == plan.end()) continue;
    l->set_expected(want->second);
    if (fnmatch(want->second.c_str(), n.system_name.c_str(), 0) != 0) {
      AddFinding(&result, "CABLING_RAIL_MISMATCH", v1::FAIL, n.interface,
                 absl::StrCat(n.interface, l->rdma_device().empty() ? "" : " (" + l->rdma_device() + ")",
                              " is cabled to ", Where(*l), "; the rail plan (", profile_source,
                              ") expects a switch matching \"", want->second, "\""),
                 "Check the cable at both ends against the rail plan (a swapped pair of rails "
                 "shows as two mismatches); fix the plan if the switch was renamed");
    }
  }
  for (const auto& [iface, pattern] : expect) {
    bool heard = false;
    for (const platform::LldpNeighbor& n : neighbors) heard |= n.interface == iface;
    if (heard) continue;
    AddFinding(&result, "CABLING_NO_NEIGHBOR", v1::WARN, iface,
               absl::StrCat("the rail plan expects ", iface, " to reach a switch matching \"",
                            pattern, "\", but lldpd heard no LLDP neighbour on it"),
               "Check that the link is up, that the switch sends LLDP on that port, and that "
               "lldpd watches the interface (lldpcli show interfaces)");
  }
  if (report->links_size() == 0 && expect.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason("lldpd heard no LLDP neighbour on any interface");
  }
  return result;
}

absl::StatusOr<v1::ProbeResult> CablingProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured() || !ctx.host.topology_xml.empty()) {
    return SkipResult("cabling", "the cabling record is read on the live host only (lldpd)");
  }
  const std::string socket = platform::LldpdSocket();
  absl::StatusOr<std::vector<platform::LldpNeighbor>> neighbors =
      platform::ReadLldpNeighbors(socket);
  if (!neighbors.ok()) {
    if (ctx.profile->cabling_expect.empty()) {
      return SkipResult("cabling", absl::StrCat("no cabling record: ", neighbors.status().message(),
                                                "; install and start lldpd on the node"));
    }
    v1::ProbeResult r;
    r.set_probe("cabling");
    AddFinding(&r, "CABLING_NO_LLDPD", v1::ERROR, "",
               absl::StrCat("the profile has a rail plan to check, but ",
                            neighbors.status().message()),
               "Install and start lldpd on the node (apt-get install lldpd), or point "
               "NODEPROBE_LLDPD_SOCKET at its socket");
    return r;
  }
  // The RDMA port behind each netdev, for the record.
  std::map<std::string, std::string> rdma_ports;
  const platform::FileTree sys(ctx.host.sys_root);
  if (auto devs = platform::ReadRdmaDevices(sys); devs.ok()) {
    for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(*devs, &sys)) {
      for (const std::string& nd : p.netdevs) rdma_ports[nd] = absl::StrCat(p.device, ":", p.port);
    }
  }
  v1::ProbeResult r = JudgeCabling(*neighbors, ctx.profile->cabling_expect, rdma_ports,
                                   ctx.profile->source);
  r.mutable_cabling()->set_lldpd_socket(socket);
  return r;
}

}  // namespace nodeprobe
