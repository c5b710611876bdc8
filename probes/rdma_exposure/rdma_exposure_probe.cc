#include "probes/rdma_exposure/rdma_exposure_probe.h"

#include "absl/strings/str_cat.h"
#include "platform/rdma_netlink.h"
#include "probes/common/preflight_profile.h"
#include "probes/common/preflight_view.h"
#include "probes/framework/result_util.h"
#include "probes/rdma_exposure/rdma_exposure.h"

namespace nodeprobe {

absl::StatusOr<v1::ProbeResult> RdmaExposureProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured()) {
    return SkipResult("rdma-exposure", "a captured node: device nodes are checked live");
  }
  const preflight::View view = preflight::ViewOf(ctx);
  const std::vector<rdma_view::Device>& devices = view.devices;
  const job::RdmaUse& use = view.rdma;
  if (!use.uses && devices.empty()) {
    return SkipResult("rdma-exposure", absl::StrCat("the job uses no RDMA here (", use.why, ")"));
  }
  v1::ProbeResult r;
  r.set_probe("rdma-exposure");
  absl::StatusOr<std::string> mode = platform::ReadRdmaNetnsMode();
  AddEvidence(&r, "rdma.netns_mode",
              mode.ok() ? *mode : absl::StrCat("unknown: ", mode.status().message()));
  rdma_exposure::Judge(
      devices, rdma_exposure::ReadUverbs("/dev/infiniband", platform::FileTree(ctx.host.sys_root)),
      use.uses, use.why, &r, mode.value_or(""));
  if (const int pkey = ctx.profile->Section<PreflightRules>().pkey; pkey >= 0) {
    rdma_exposure::JudgePkey(devices, pkey, &r);
  }
  return r;
}

}  // namespace nodeprobe
