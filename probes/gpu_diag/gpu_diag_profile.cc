// File: gpu_diag_profile.cc
// Declares `gpu_diag:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/gpu_diag/gpu_diag_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

constexpr char kSection[] = "gpu_diag";

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     GpuDiagRules& into) {
  const std::string name = absl::StrCat(kSection, ".", key);
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (*n != static_cast<int>(*n) || *n < 1 || *n > 4) {
    return r.Error(v, name + " must be 1, 2, 3 or 4 (dcgmi diag's run levels)");
  }
  into.level = static_cast<int>(*n);  // the section's one key
  return absl::OkStatus();
}

}  // namespace

ProfileSection GpuDiagProfileSection() {
  const GpuDiagRules d;  // what applies without a key
  return DeclareSection<GpuDiagRules>(
      kSection,
      {{"gpu_diag.level", "1, 2, 3 or 4", absl::StrCat(d.level),
        "dcgmi diag's run level for the gpu-diag probe (1: seconds, 2: minutes, 3: about half "
        "an hour, 4: hours)"}},
      ReadKey);
}

const GpuDiagRules& GpuDiagRulesOf(const Profile& profile) {
  return profile.Section<GpuDiagRules>(kSection);
}

}  // namespace nodeprobe
