// File: memlock_probe.cc
#include "probes/memlock/memlock_probe.h"

#include <sys/resource.h>

#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "probes/common/job_view.h"
#include "probes/common/preflight_profile.h"
#include "probes/framework/result_util.h"

namespace nodeprobe {

namespace preflight {

using job::Bytes;

void JudgeMemlock(uint64_t limit, uint64_t need, const std::string& need_why,
                  const std::string& uses_why, v1::ProbeResult* r) {
  AddMeasurement(r, "preflight.memlock_limit",
                 limit == std::numeric_limits<uint64_t>::max() ? -1 : static_cast<double>(limit),
                 "bytes");
  AddMeasurement(r, "preflight.memlock_need", static_cast<double>(need), "bytes");
  AddEvidence(r, "getrlimit(RLIMIT_MEMLOCK)", Bytes(limit));
  AddEvidence(r, "memlock.need", absl::StrCat(Bytes(need), ": ", need_why));
  if (limit >= need) return;
  AddFinding(r, "MEMLOCK_TOO_LOW", "",
             absl::StrCat("the job may lock ", Bytes(limit),
                          " of memory (RLIMIT_MEMLOCK) and its "
                          "RDMA needs about ",
                          Bytes(need), " (", need_why, "; RDMA because ", uses_why,
                          "): ibv_reg_mr and ibv_create_qp will fail"));
}

}  // namespace preflight

absl::StatusOr<v1::ProbeResult> MemlockProbe::Run(const ProbeContext& ctx) {
  const job::Env env = job::ProcessEnvironment();
  const PreflightRules& rules = PreflightRulesOf(*ctx.profile);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devices =
      platform::ReadRdmaDevices(platform::FileTree(ctx.host.sys_root));
  const job::RdmaUse use =
      job::RdmaUseOf(env, devices.ok() ? static_cast<int>(devices->size()) : 0, rules.expect_rdma);
  if (!use.uses) {
    return SkipResult("memlock", absl::StrCat("the job uses no RDMA here (", use.why,
                                              "): locked memory does not limit it"));
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
    return ErrorResult("memlock", "PROBE_COULD_NOT_RUN", "getrlimit(RLIMIT_MEMLOCK) failed");
  }
  const uint64_t limit = rl.rlim_cur == RLIM_INFINITY ? std::numeric_limits<uint64_t>::max()
                                                      : static_cast<uint64_t>(rl.rlim_cur);
  uint64_t need = 0;
  std::string why;
  if (rules.memlock_min_mb > 0) {
    need = static_cast<uint64_t>(rules.memlock_min_mb * (1 << 20));
    why = "the profile's preflight.memlock_min_mb";
  } else {
    const job::LocalRanks ranks = job::RanksOf(env, ctx.gpus_granted, job::VisibleGpuNodes());
    const int n = std::max(1, ranks.count);
    const int channels = job::Channels(env);
    need = static_cast<uint64_t>(n) * channels * 2 * job::ConnectionBytes(env);
    why =
        absl::StrCat(n, " local ranks (", ranks.source, ") x ", channels, " channels x 2 x NCCL's ",
                     job::Bytes(job::ConnectionBytes(env)), " buffers");
  }
  v1::ProbeResult r;
  r.set_probe("memlock");
  preflight::JudgeMemlock(limit, need, why, use.why, &r);
  return r;
}

}  // namespace nodeprobe
