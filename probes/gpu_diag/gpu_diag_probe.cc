#include "probes/gpu_diag/gpu_diag_probe.h"

#include <unistd.h>

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "platform/child_process.h"
#include "platform/cuda_driver.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/dcgmi_diag.h"
#include "probes/gpu_diag/gpu_diag_findings.h"
#include "probes/gpu_diag/gpu_diag_image.h"
#include "probes/gpu_diag/gpu_diag_profile.h"
#include "probes/gpu_diag/own_diag.h"

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

namespace {

// dcgmi diag at the profile's level, its table judged into `r`; a run that
// did not finish is GPU_DIAG_NOT_RUN.
void RunDcgmi(const ProbeContext& ctx, const std::string& dcgmi, int level, v1::ProbeResult* r) {
  (*r->mutable_evidence())["gpu-diag.command"] = absl::StrCat(dcgmi, " diag -r ", level);
  absl::StatusOr<platform::ProgramOutput> run =
      platform::RunProgram(dcgmi, {"diag", "-r", absl::StrCat(level)}, ctx.deadline);
  if (absl::IsDeadlineExceeded(run.status())) {
    AddFinding(r, findings::kGpuDiagNotRun.code, "dcgmi",
               absl::StrCat("dcgmi diag -r ", level,
                            " did not finish before the stage's deadline: raise --timeout, or "
                            "lower gpu_diag.level"));
    return;
  }
  if (!run.ok()) {
    AddFinding(r, findings::kGpuDiagNotRun.code, "dcgmi",
               absl::StrCat("dcgmi: ", run.status().message()));
    return;
  }
  const std::string& ending = run->ending;
  const gpu_diag::DcgmDiag diag = gpu_diag::ParseDcgmiDiag(run->out);
  if (diag.tests.empty()) {
    AddFinding(r, findings::kGpuDiagNotRun.code, "dcgmi",
               absl::StrCat("dcgmi diag printed no results (", ending,
                            "): is nv-hostengine running? (systemctl status nvidia-dcgm)"));
    return;
  }
  gpu_diag::JudgeDcgmiDiag(diag, r);
}

}  // namespace

absl::StatusOr<v1::ProbeResult> GpuDiagProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured()) {
    return SkipResult("gpu-diag", "a captured node: active diagnostics need the live GPUs");
  }
  const GpuDiagRules& rules = ctx.profile->Section<GpuDiagRules>();
  v1::ProbeResult r;
  r.set_probe("gpu-diag");
  std::vector<std::string> not_here;  // what does not apply, for the SKIP
  // nodeprobe's own tests wherever there is a driver: without one there is
  // no GPU to test; with one that fails, the failure is the finding.
  if (platform::LoadCudaDriver()->lib == nullptr) {
    not_here.push_back("no NVIDIA driver (libcuda.so.1), so no GPU for nodeprobe's own tests");
  } else {
    absl::StatusOr<std::vector<gpu_diag::OwnDiagGpu>> own =
        gpu_diag::RunOwnDiag(gpu_diag::KernelImage(), rules, ctx.deadline);
    if (own.ok()) {
      (*r.mutable_evidence())["gpu-diag.own_tests"] = absl::StrCat(
          "memory patterns over ", rules.memory_fraction, " of free memory x ", rules.memory_passes,
          ", triad, cuBLAS bf16 GEMM n=", rules.gemm_n, " on ", own->size(), " GPU(s)");
      gpu_diag::JudgeOwnDiag(*own, rules, &r);
    } else {
      AddFinding(&r, findings::kGpuDiagNotRun.code, "cuda",
                 absl::StrCat("nodeprobe's own GPU tests did not start: ", own.status().message()));
    }
  }
  // Where DCGM's packages put it, and the PATH of whoever runs us.
  const char* env_path = std::getenv("PATH");
  const std::string dcgmi = gpu_diag::FindOnPath(
      "dcgmi", absl::StrCat("/usr/bin:/usr/local/bin:", env_path ? env_path : ""));
  if (dcgmi.empty()) {
    not_here.push_back(
        "DCGM is not installed (no dcgmi): install datacenter-gpu-manager and start "
        "nv-hostengine for dcgmi diag beside them");
  } else {
    RunDcgmi(ctx, dcgmi, rules.level, &r);
  }
  if (not_here.size() == 2) return SkipResult("gpu-diag", absl::StrJoin(not_here, "; "));
  if (!not_here.empty()) (*r.mutable_evidence())["gpu-diag.not_run"] = not_here[0];
  return r;
}

}  // namespace nodeprobe
