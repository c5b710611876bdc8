#include "probes/gpu_view/gpu_view.h"

#include <map>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_view/gpu_view_findings.h"
#include "probes/locality/locality_probe.h"

namespace nodeprobe::gpu_view {
namespace {

using locality::PathClass;

using job::Get;

// How many GPUs CUDA will enumerate from CUDA_VISIBLE_DEVICES: it stops at
// the first entry that is not an ordinal or a UUID (job::CudaVisibleEntries)
// or an index that does not exist (UUID and MIG entries are taken as
// given); `bad` is that entry.
int CudaUsable(const std::string& list, int seen, std::string* bad) {
  const std::vector<std::string> entries = job::CudaVisibleEntries(list, bad);
  int n = 0;
  for (const std::string& e : entries) {
    int index = 0;
    if (absl::SimpleAtoi(e, &index) && index >= seen) {
      *bad = e;
      break;
    }
    ++n;
  }
  return std::min(n, seen);
}

// The farthest path class NCCL_NET_GDR_LEVEL lets GPUDirect RDMA take,
// by name or legacy number; -1 for LOC (never); nullopt when it is not a
// level (nccl-env says so).
std::optional<int> GdrLimit(const std::string& v) {
  static const std::map<std::string, int> kLevels = {{"LOC", -1},
                                                     {"0", -1},
                                                     {"PIX", static_cast<int>(PathClass::kPix)},
                                                     {"1", static_cast<int>(PathClass::kPix)},
                                                     {"PXB", static_cast<int>(PathClass::kPxb)},
                                                     {"2", static_cast<int>(PathClass::kPxb)},
                                                     {"PHB", static_cast<int>(PathClass::kPhb)},
                                                     {"3", static_cast<int>(PathClass::kPhb)},
                                                     {"SYS", static_cast<int>(PathClass::kSys)},
                                                     {"4", static_cast<int>(PathClass::kSys)},
                                                     {"5", static_cast<int>(PathClass::kSys)}};
  auto it = kLevels.find(v);
  if (it == kLevels.end()) return std::nullopt;
  return it->second;
}

std::string RailText(const RdmaRail& rail) {
  return absl::StrCat(absl::StrJoin(rail.nics, ","), " (", locality::PathClassName(*rail.path),
                      ")");
}

void JudgeGdrLevel(const std::string& gpu, const RdmaRail& rail, const std::string& level,
                   v1::ProbeResult* r) {
  const std::optional<int> limit = GdrLimit(level);
  if (!limit || !rail.path || static_cast<int>(*rail.path) <= *limit) return;
  AddFinding(
      r, findings::kNcclGdrLevelExcludesNic.code, gpu,
      absl::StrCat("GPU ", gpu, " reaches ", RailText(rail), " and NCCL_NET_GDR_LEVEL=", level,
                   ": GPUDirect RDMA is off for it, its traffic is staged through "
                   "host memory"));
}

}  // namespace

void JudgeGrant(const job::Env& env, const job::LocalRanks& grant, const Seen& seen,
                v1::ProbeResult* r) {
  int usable = seen.count;
  std::string usable_why = seen.source;
  std::string bad;
  const std::string cvd = Get(env, "CUDA_VISIBLE_DEVICES");
  if (env.count("CUDA_VISIBLE_DEVICES")) {
    // "", "-1", "NoDevFiles": no GPU, on purpose.
    usable = job::CountGpuList(cvd) == 0 ? 0 : CudaUsable(cvd, seen.count, &bad);
    usable_why = "CUDA_VISIBLE_DEVICES=" + cvd;
  }
  AddEvidence(r, "gpu.seen", absl::StrCat(seen.count, " (", seen.source, ")"));
  AddEvidence(r, "gpu.usable", absl::StrCat(usable, " (", usable_why, ")"));
  AddEvidence(r, "gpu.granted",
              grant.count < 0 ? "not stated" : absl::StrCat(grant.count, " (", grant.source, ")"));
  if (const std::string v = Get(env, "NVIDIA_VISIBLE_DEVICES"); !v.empty()) {
    AddEvidence(r, "env.NVIDIA_VISIBLE_DEVICES", v);
  }
  AddMeasurement(r, "preflight.gpus_seen", seen.count, "");
  AddMeasurement(r, "preflight.gpus_usable", usable, "");
  if (!bad.empty()) {
    AddFinding(r, findings::kGpuGrantNotVisible.code, "",
               absl::StrCat("CUDA_VISIBLE_DEVICES=", cvd, " names GPU ", bad, " but ", seen.count,
                            " are visible here (", seen.source,
                            "): CUDA stops at that entry, \"invalid device ordinal\" follows"));
  }
  if (grant.count > 0 && usable < grant.count) {
    AddFinding(
        r, findings::kGpuGrantNotVisible.code, "",
        absl::StrCat("the job was granted ", grant.count, " GPUs (", grant.source, ") and can use ",
                     usable, " here (", usable_why, "): its other ranks will find no device"));
  } else if (grant.count >= 0 && usable > grant.count) {
    AddFinding(
        r, findings::kGpuGrantExceeded.code, "",
        absl::StrCat("the job can use ", usable, " GPUs here (", usable_why, ") but was granted ",
                     grant.count, " (", grant.source, "): it may run on GPUs other jobs hold"));
  }
}

void JudgeRails(const platform::PciTopology& topology, const std::set<std::string>& gpus,
                const std::set<std::string>& visible_rdma, bool uses_rdma, const job::Env& env,
                v1::ProbeResult* r) {
  platform::PciTopology seen = topology;  // the NICs this container was given
  for (platform::TopoPciDevice& d : seen.devices) {
    std::vector<std::string> kept;
    for (const std::string& n : d.rdma_devices) {
      if (visible_rdma.count(n)) kept.push_back(n);
    }
    d.rdma_devices = kept;
  }
  const std::map<std::string, RdmaRail> host = RdmaRails(topology);
  const std::map<std::string, RdmaRail> here = RdmaRails(seen);
  const std::string level = Get(env, "NCCL_NET_GDR_LEVEL");
  for (const auto& [gpu, rail] : host) {
    if (!gpus.empty() && !gpus.count(gpu)) continue;
    const RdmaRail& mine = here.at(gpu);
    std::string text =
        mine.path ? absl::StrCat("nearest visible NIC ", RailText(mine)) : "no visible RDMA NIC";
    if (rail.path && rail.nics != mine.nics) {
      absl::StrAppend(&text, "; the host's nearest ", RailText(rail));
    }
    AddEvidence(r, "gpu." + gpu, text);
    if (!uses_rdma) continue;
    if (rail.path && mine.path && rail.nics != mine.nics && *mine.path > *rail.path) {
      AddFinding(r, findings::kGpuNearestNicNotVisible.code, gpu,
                 absl::StrCat("GPU ", gpu, "'s nearest RDMA NIC on this host is ", RailText(rail),
                              ", not visible here: its traffic goes to ", RailText(mine)));
    }
    if (!level.empty()) JudgeGdrLevel(gpu, mine, level, r);
  }
}

}  // namespace nodeprobe::gpu_view
