#include "probes/gpu_view/gpu_view_probe.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "platform/gpu_inventory.h"
#include "platform/hwloc_topology.h"
#include "platform/nvml.h"
#include "probes/common/preflight_view.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_view/gpu_view.h"
#include "probes/locality/locality_probe.h"

namespace nodeprobe {
absl::StatusOr<v1::ProbeResult> GpuViewProbe::Run(const ProbeContext& ctx) {
  const preflight::View view = preflight::ViewOf(ctx);
  const job::Env& env = view.env;
  const platform::GpusSeen gpus = platform::VisibleGpus();
  const gpu_view::Seen seen = {gpus.count, gpus.source};
  const std::set<std::string> buses(gpus.bus_ids.begin(), gpus.bus_ids.end());
  const job::LocalRanks grant = gpu_view::GrantOf(env, job::GrantedGpus(ctx.arguments));
  if (seen.count == 0 && grant.count <= 0) {
    return SkipResult("gpu-view",
                      absl::StrCat("no GPU visible here (", seen.source, ") and none granted"));
  }
  v1::ProbeResult r;
  r.set_probe("gpu-view");
  gpu_view::JudgeGrant(env, grant, seen, &r);
  if (seen.count == 0) return r;

  absl::StatusOr<platform::TopologySource> source = TopologySourceOf(ctx.host);
  absl::StatusOr<platform::PciTopology> topo =
      source.ok() ? platform::LoadPciTopology(*source) : source.status();
  if (!topo.ok()) {
    AddEvidence(&r, "topology", absl::StrCat("not read: ", topo.status().message()));
    return r;
  }
  std::set<std::string> visible;
  for (const rdma_view::Device& d : view.devices) visible.insert(d.name);
  gpu_view::JudgeRails(*topo, buses, visible, view.rdma.uses, env, &r);
  // An unreadable file is nccl-env's NCCL_ENV_INVALID; a readable one is
  // compared with this node, as the locality probe does on the host.
  if (auto it = env.find("NCCL_TOPO_FILE");
      it != env.end() && access(it->second.c_str(), R_OK) == 0) {
    CheckNcclTopoFile(*topo, it->second, &r);
  }
  return r;
}

}  // namespace nodeprobe
