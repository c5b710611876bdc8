#include "probes/nccl_env/nccl_env_probe.h"

#include "platform/netlink_links.h"
#include "probes/common/rdma_view.h"
#include "probes/framework/result_util.h"
#include "probes/nccl_env/nccl_env.h"

namespace nodeprobe {

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
  nccl_env::Judge(env, rdma_view::DevicesHere(ctx.host), links, &r);
  return r;
}

}  // namespace nodeprobe
