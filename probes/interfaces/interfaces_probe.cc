#include "probes/interfaces/interfaces_probe.h"

#include <map>

#include "platform/netlink_links.h"
#include "platform/route.h"
#include "probes/common/preflight_profile.h"
#include "probes/common/preflight_view.h"
#include "probes/framework/result_util.h"
#include "probes/interfaces/interfaces.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> InterfacesProbe::Run(const ProbeContext& ctx) {
  std::vector<interfaces::Interface> all =
      interfaces::ReadInterfaces(platform::FileTree(ctx.host.sys_root));
  if (all.empty()) {
    return SkipResult("interfaces", "no network interface but loopback in this namespace");
  }
  const std::string primary = interfaces::DefaultRouteInterface(
      platform::FileTree(ctx.host.proc_root).ReadBytes("net/route", 1 << 20).value_or(""));

  const preflight::View view = preflight::ViewOf(ctx);
  interfaces::Rules judge;
  judge.mtu = ctx.profile->Section<PreflightRules>().interface_mtu;
  judge.rdma_expected = view.rdma.uses;
  judge.rdma_why = view.rdma.why;
  judge.addresses_known = !ctx.host.IsCaptured();
  if (judge.addresses_known) {
    std::map<std::string, std::string> kinds;  // rtnetlink's kind by name
    for (const platform::NetLink& l :
         platform::ReadLinks().value_or(std::vector<platform::NetLink>{})) {
      kinds[l.name] = l.kind;
    }
    for (interfaces::Interface& i : all) {
      i.ipv4 = platform::Ipv4AddressesOf(i.name);
      i.kind = kinds[i.name];
    }
  }
  v1::ProbeResult r;
  r.set_probe("interfaces");
  AddEvidence(&r, "route.default", primary.empty() ? "none (no IPv4 default route)" : primary);
  interfaces::Judge(all, primary, judge, &r);
  return r;
}

}  // namespace nodeprobe
