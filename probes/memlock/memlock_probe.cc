#include "probes/memlock/memlock_probe.h"

#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <set>

#include "absl/strings/str_cat.h"
#include "platform/file_tree.h"
#include "platform/gpu_inventory.h"
#include "platform/verbs_qp.h"
#include "probes/common/job_view.h"
#include "probes/common/preflight_profile.h"
#include "probes/common/preflight_view.h"
#include "probes/common/rdma_view.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/memlock/memlock_findings.h"
#include "probes/rdma_exposure/rdma_exposure.h"

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
  AddFinding(r, findings::kMemlockTooLow.code, "",
             absl::StrCat("the job may lock ", Bytes(limit),
                          " of memory (RLIMIT_MEMLOCK) and its "
                          "RDMA needs about ",
                          Bytes(need), " (", need_why, "; RDMA because ", uses_why,
                          "): ibv_reg_mr and ibv_create_qp will fail"));
}

}  // namespace preflight

namespace {

// The limit says yes; the device has the last word: register the need on
// the first usable port (an openable uverbs node, an ACTIVE port), with a
// queue pair, as NCCL will. Pinned-page accounting, a device's MKey limits
// (tests/fixtures/pod-rdma/issue-ucx6264-*) and ibv_create_qp in a
// container (issue-nccl562-*) all fail here first.
void RegisterNeed(const ProbeContext& ctx, const std::vector<rdma_view::Device>& devices,
                  uint64_t need, v1::ProbeResult* r) {
  constexpr uint64_t kMaxTry = uint64_t{4} << 30;  // pins real memory: bounded
  std::set<std::string> openable;
  for (const rdma_exposure::Uverbs& u :
       rdma_exposure::ReadUverbs("/dev/infiniband", platform::FileTree(ctx.host.sys_root))) {
    if (u.openable) openable.insert(u.device);
  }
  for (const rdma_view::Device& d : devices) {
    if (!openable.count(d.name)) continue;
    for (const rdma_view::Port& p : d.ports) {
      if (!p.active) continue;
      const uint64_t bytes = std::min(need, kMaxTry);
      auto qp = platform::VerbsQp::Open(d.name, static_cast<uint8_t>(p.port), bytes, {});
      const std::string where = absl::StrCat(d.name, " port ", p.port, ", ", job::Bytes(bytes));
      if (qp.ok()) {
        AddEvidence(r, "ibv_reg_mr", absl::StrCat(where, ": registered, QP created"));
      } else {
        AddFinding(r, findings::kMemlockTooLow.code, d.name,
                   absl::StrCat("registering the job's need on ", where, " failed (",
                                qp.status().message(),
                                "): NCCL's ibv_reg_mr/ibv_create_qp "
                                "will fail the same way"));
      }
      return;
    }
  }
  AddEvidence(r, "ibv_reg_mr", "not tried: no openable RDMA device with an ACTIVE port here");
}

}  // namespace

absl::StatusOr<v1::ProbeResult> MemlockProbe::Run(const ProbeContext& ctx) {
  const preflight::View view = preflight::ViewOf(ctx);
  const job::Env& env = view.env;
  const job::RdmaUse& use = view.rdma;
  const PreflightRules& rules = ctx.profile->Section<PreflightRules>();
  if (!use.uses) {
    return SkipResult("memlock", absl::StrCat("the job uses no RDMA here (", use.why,
                                              "): locked memory does not limit it"));
  }
  struct rlimit rl;
  if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
    return ErrorResult("memlock", findings::kProbeCouldNotRun.code,
                       "getrlimit(RLIMIT_MEMLOCK) failed");
  }
  const uint64_t limit = rl.rlim_cur == RLIM_INFINITY ? std::numeric_limits<uint64_t>::max()
                                                      : static_cast<uint64_t>(rl.rlim_cur);
  uint64_t need = 0;
  std::string why;
  if (rules.memlock_min_mb > 0) {
    need = static_cast<uint64_t>(rules.memlock_min_mb * (1 << 20));
    why = "the profile's preflight.memlock_min_mb";
  } else {
    const job::LocalRanks ranks =
        job::RanksOf(env, job::GrantedGpus(ctx.arguments), platform::GpuDeviceNodes());
    const int n = std::max(1, ranks.count);
    const int channels = job::Channels(env);
    need = job::Product({static_cast<uint64_t>(n), static_cast<uint64_t>(channels), 2,
                         job::ConnectionBytes(env)});
    why =
        absl::StrCat(n, " local ranks (", ranks.source, ") x ", channels, " channels x 2 x NCCL's ",
                     job::Bytes(job::ConnectionBytes(env)), " buffers");
  }
  v1::ProbeResult r;
  r.set_probe("memlock");
  preflight::JudgeMemlock(limit, need, why, use.why, &r);
  if (limit >= need && !ctx.host.IsCaptured()) RegisterNeed(ctx, view.devices, need, &r);
  return r;
}

}  // namespace nodeprobe
