// File: gpu_diag_profile.cc
// Declares `gpu_diag:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/gpu_diag/gpu_diag_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"
#include "probes/gpu_diag/gpu_diag_findings.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     GpuDiagRules& into) {
  const std::string name = absl::StrCat(GpuDiagRules::kSection, ".", key);
  struct Whole {
    const char* key;
    int* into;
    int min, max;
    const char* why;
  };
  const Whole wholes[] = {{"level", &into.level, 1, 4, " (dcgmi diag's run levels)"},
                          {"memory_passes", &into.memory_passes, 1, 100, ""},
                          {"gemm_n", &into.gemm_n, 256, 65536, " (the GEMM's m = n = k)"}};
  for (const Whole& w : wholes) {
    if (key != w.key) continue;
    absl::StatusOr<int64_t> whole = r.Whole(v, name, w.min, w.max, w.why);
    if (!whole.ok()) return whole.status();
    *w.into = static_cast<int>(*whole);
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "gemm_min_tflops") {
    if (*n <= 0) return r.Error(v, name + " must be above 0 (leave it out to use the table)");
    into.gemm_min_tflops = *n;
    return absl::OkStatus();
  }
  // Fractions: above 0, and memory_fraction leaves the driver room.
  const double max = key == "memory_fraction" ? 0.95 : 1.0;
  if (*n <= 0 || *n > max) {
    return r.Error(v, absl::StrCat(name, " must be a fraction above 0 and at most ", max));
  }
  if (key == "memory_fraction") into.memory_fraction = *n;
  if (key == "hbm_min_fraction") into.hbm_min_fraction = *n;
  if (key == "gemm_min_fraction") into.gemm_min_fraction = *n;
  return absl::OkStatus();
}

}  // namespace

ProfileSection GpuDiagProfileSection() {
  const GpuDiagRules d;  // what applies without a key
  return DeclareSection<GpuDiagRules>(
      {{"gpu_diag.level", "1, 2, 3 or 4", absl::StrCat(d.level),
        "dcgmi diag's run level for the gpu-diag probe where DCGM is installed (1: seconds, 2: "
        "minutes, 3: about half an hour, 4: hours)"},
       {"gpu_diag.memory_fraction", "fraction, at most 0.95", absl::StrCat(d.memory_fraction),
        "of each GPU's free memory that the pattern test writes and reads back"},
       {"gpu_diag.memory_passes", "1 .. 100", absl::StrCat(d.memory_passes),
        "times every pattern goes over that memory"},
       {"gpu_diag.hbm_min_fraction", "fraction", absl::StrCat(d.hbm_min_fraction),
        "the triad's GB/s at least this of what NVML's memory clock x bus width allow, "
        "else GPU_HBM_BANDWIDTH_LOW"},
       {"gpu_diag.gemm_n", "256 .. 65536", absl::StrCat(d.gemm_n),
        "the square bf16 GEMM's size (m = n = k) that cuBLAS runs"},
       {"gpu_diag.gemm_min_fraction", "fraction", absl::StrCat(d.gemm_min_fraction),
        "the GEMM's TFLOPS at least this of the model's datasheet dense bf16 peak, "
        "else GPU_GEMM_BELOW_EXPECTED"},
       {"gpu_diag.gemm_min_tflops", "TFLOPS", "from the table x gemm_min_fraction",
        "the GEMM's bar itself, for models the table does not know or a site's own figure"}},
      ReadKey);
}

}  // namespace nodeprobe
