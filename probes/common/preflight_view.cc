#include "probes/common/preflight_view.h"

#include "probes/common/preflight_profile.h"

namespace nodeprobe::preflight {

View ViewOf(const ProbeContext& ctx) {
  View v;
  v.env = job::ProcessEnvironment();
  v.devices = rdma_view::DevicesHere(ctx.host);
  v.rdma = job::RdmaUseOf(v.env, static_cast<int>(v.devices.size()),
                          ctx.profile->Section<PreflightRules>().expect_rdma);
  return v;
}

}  // namespace nodeprobe::preflight
