// File: interfaces_probe.cc
#include "probes/interfaces/interfaces_probe.h"

#include <fstream>
#include <sstream>

#include "platform/netlink_links.h"
#include "platform/route.h"
#include "probes/common/job_view.h"
#include "probes/common/preflight_profile.h"
#include "probes/common/rdma_view.h"
#include "probes/framework/result_util.h"
#include "probes/interfaces/interfaces.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> InterfacesProbe::Run(const ProbeContext& ctx) {
  std::vector<interfaces::Interface> all =
      interfaces::ReadInterfaces(platform::FileTree(ctx.host.sys_root));
  if (all.empty()) {
    return SkipResult("interfaces", "no network interface but loopback in this namespace");
  }
  std::ifstream route(ctx.host.proc_root + "/net/route");
  std::stringstream text;
  text << route.rdbuf();
  const std::string primary = interfaces::DefaultRouteInterface(text.str());

  const PreflightRules& rules = PreflightRulesOf(*ctx.profile);
  const job::RdmaUse use =
      job::RdmaUseOf(job::ProcessEnvironment(),
                     static_cast<int>(rdma_view::DevicesHere(ctx.host).size()), rules.expect_rdma);
  interfaces::Rules judge;
  judge.mtu = rules.interface_mtu;
  judge.rdma_expected = use.uses;
  judge.rdma_why = use.why;
  judge.addresses_known = !ctx.host.IsCaptured();
  if (judge.addresses_known) {
    absl::StatusOr<std::vector<platform::NetLink>> links = platform::ReadLinks();
    for (interfaces::Interface& i : all) {
      i.ipv4 = platform::Ipv4AddressesOf(i.name);
      for (const platform::NetLink& l : links.value_or(std::vector<platform::NetLink>{})) {
        if (l.name == i.name) i.kind = l.kind;
      }
    }
  }
  v1::ProbeResult r;
  r.set_probe("interfaces");
  AddEvidence(&r, "route.default", primary.empty() ? "none (no IPv4 default route)" : primary);
  interfaces::Judge(all, primary, judge, &r);
  return r;
}

}  // namespace nodeprobe
