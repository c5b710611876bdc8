// File: nccl_env_probe.cc
#include "probes/nccl_env/nccl_env_probe.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "platform/file_tree.h"
#include "platform/netlink_links.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/result_util.h"
#include "probes/nccl_env/nccl_env.h"

namespace nodeprobe {
namespace {

std::string Attr(const std::map<std::string, platform::RawAttr>& attrs, const char* name) {
  auto it = attrs.find(name);
  return it != attrs.end() && it->second.value.ok() ? *it->second.value : "";
}

std::vector<nccl_env::Device> DevicesHere(const platform::HostPaths& host) {
  std::vector<nccl_env::Device> out;
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> raw =
      platform::ReadRdmaDevices(platform::FileTree(host.sys_root));
  if (!raw.ok()) return out;
  for (const platform::RawRdmaDevice& d : *raw) {
    nccl_env::Device dev;
    dev.name = d.name;
    for (const platform::RawRdmaPort& p : d.ports) {
      nccl_env::Port port;
      port.port = static_cast<int>(p.port);
      port.active = absl::StrContains(Attr(p.attrs, "state"), "ACTIVE");
      port.ethernet = Attr(p.attrs, "link_layer") == "Ethernet";
      for (const platform::RawGid& g : p.gids) {
        nccl_env::Gid gid;
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

}  // namespace

absl::StatusOr<v1::ProbeResult> NcclEnvProbe::Run(const ProbeContext& ctx) {
  const job::Env env = job::ProcessEnvironment();
  bool any = false;
  for (const auto& [key, value] : env) any |= key.rfind("NCCL_", 0) == 0;
  if (!any) return SkipResult("nccl-env", "no NCCL_* variable set: NCCL's defaults apply");
  std::vector<nccl_env::Link> links;
  absl::StatusOr<std::vector<platform::NetLink>> raw = platform::ReadLinks();
  if (raw.ok()) {
    for (const platform::NetLink& l : *raw) links.push_back({l.name, l.up});
  }
  v1::ProbeResult r;
  r.set_probe("nccl-env");
  nccl_env::Judge(env, DevicesHere(ctx.host), links, &r);
  return r;
}

}  // namespace nodeprobe
