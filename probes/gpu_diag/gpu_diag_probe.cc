// File: gpu_diag_probe.cc
#include "probes/gpu_diag/gpu_diag_probe.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "platform/child_process.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/dcgmi_diag.h"
#include "probes/gpu_diag/gpu_diag_profile.h"

namespace nodeprobe {

namespace gpu_diag {
std::string FindOnPath(const std::string& name, const std::string& path) {
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    const std::string exe = absl::StrCat(dir, "/", name);
    if (access(exe.c_str(), X_OK) == 0) return exe;
  }
  return "";
}
}  // namespace gpu_diag

absl::StatusOr<v1::ProbeResult> GpuDiagProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured()) {
    return SkipResult("gpu-diag", "a captured node: active diagnostics need the live GPUs");
  }
  // Where DCGM's packages put it, and the PATH of whoever runs us.
  const char* env_path = std::getenv("PATH");
  const std::string dcgmi = gpu_diag::FindOnPath(
      "dcgmi", absl::StrCat("/usr/bin:/usr/local/bin:", env_path ? env_path : ""));
  if (dcgmi.empty()) {
    return SkipResult("gpu-diag",
                      "DCGM is not installed here (no dcgmi): install datacenter-gpu-manager and "
                      "start nv-hostengine for active GPU diagnostics; nodeprobe's own memory, "
                      "bandwidth and GEMM tests are not built yet");
  }
  const GpuDiagRules& rules = GpuDiagRulesOf(*ctx.profile);
  v1::ProbeResult r;
  r.set_probe("gpu-diag");
  (*r.mutable_evidence())["gpu-diag.command"] = absl::StrCat(dcgmi, " diag -r ", rules.level);
  absl::StatusOr<platform::ChildProcess> child =
      platform::ChildProcess::Start(dcgmi, {"diag", "-r", absl::StrCat(rules.level)});
  if (!child.ok()) {
    return ErrorResult("gpu-diag", "GPU_DIAG_NOT_RUN",
                       absl::StrCat("dcgmi did not start: ", child.status().message()));
  }
  while (!child->eof()) {
    absl::Status more = child->ReadMore(ctx.deadline);
    if (absl::IsDeadlineExceeded(more)) {
      return ErrorResult("gpu-diag", "GPU_DIAG_NOT_RUN",
                         absl::StrCat("dcgmi diag -r ", rules.level,
                                      " did not finish before the stage's deadline: raise "
                                      "--timeout, or lower gpu_diag.level"));
    }
    if (!more.ok()) break;
  }
  const std::string ending = child->Ending();
  const gpu_diag::DcgmDiag diag = gpu_diag::ParseDcgmiDiag(*child->buffer());
  if (diag.tests.empty()) {
    return ErrorResult("gpu-diag", "GPU_DIAG_NOT_RUN",
                       absl::StrCat("dcgmi diag printed no results (", ending,
                                    "): is nv-hostengine running? (systemctl status "
                                    "nvidia-dcgm)"));
  }
  gpu_diag::JudgeDcgmiDiag(diag, &r);
  return r;
}

}  // namespace nodeprobe
