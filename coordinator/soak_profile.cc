// File: soak_profile.cc
// Declares `soak:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "coordinator/soak_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     SoakRules& into) {
  const std::string name = absl::StrCat(SoakRules::kSection, ".", key);
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (*n <= 0 || *n >= 1) return r.Error(v, name + " must be a fraction above 0 and below 1");
  (key == "max_spread" ? into.max_spread : into.max_drift) = *n;
  return absl::OkStatus();
}

}  // namespace

ProfileSection SoakProfileSection() {
  const SoakRules d;  // what applies without a key
  return DeclareSection<SoakRules>(
      {{"soak.max_spread", "fraction in (0, 1)", absl::StrCat(d.max_spread),
        "a direction whose figures vary more than this over a soak (stddev / mean) "
        "is SOAK_UNSTABLE"},
       {"soak.max_drift", "fraction in (0, 1)", absl::StrCat(d.max_drift),
        "a direction whose last third is slower than its first by more than this is SOAK_DRIFT"}},
      ReadKey);
}

}  // namespace nodeprobe
