// Declares `baseline:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "coordinator/baseline/baseline_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     BaselineRules& into) {
  const std::string name = absl::StrCat(BaselineRules::kSection, ".", key);
  if (key == "use") {
    absl::StatusOr<bool> b = r.Bool(v, name);
    if (!b.ok()) return b.status();
    into.use = *b;
    return absl::OkStatus();
  }
  if (key == "min_runs") {
    absl::StatusOr<int64_t> n = r.Whole(v, name, 2, 100000);
    if (!n.ok()) return n.status();
    into.min_runs = static_cast<size_t>(*n);
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "noise_sigmas") {
    if (*n < 0 || *n > 100) return r.Error(v, name + " must be in [0, 100]");
    into.noise_sigmas = *n;
    return absl::OkStatus();
  }
  if (*n <= 0 || *n >= 1) return r.Error(v, name + " must be a fraction above 0 and below 1");
  (key == "regression_warn" ? into.regression_warn : into.regression_fail) = *n;
  if (into.regression_warn > into.regression_fail) {
    return r.Error(v, "baseline.regression_warn must not be above baseline.regression_fail");
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection BaselineProfileSection() {
  const BaselineRules d;  // what applies without a key
  return DeclareSection<BaselineRules>(
      {{"baseline.use", "true | false", "false",
        "judge each figure also against its node class's earlier accepted runs "
        "(REGRESSED_FROM_BASELINE)"},
       {"baseline.min_runs", "integer 2 .. 100000", absl::StrCat(d.min_runs),
        "accepted runs a class needs before its baseline judges anything"},
       {"baseline.regression_warn", "fraction in (0, 1)", absl::StrCat(d.regression_warn),
        "worse than the class's median by more than this (and beyond its noise): WARN"},
       {"baseline.regression_fail", "fraction in (0, 1)", absl::StrCat(d.regression_fail),
        "worse by more than this (and beyond its noise): FAIL"},
       {"baseline.noise_sigmas", "number in [0, 100]", absl::StrCat(d.noise_sigmas),
        "the gap must also pass this many of the baseline's own spreads (its robust MAD)"}},
      ReadKey);
}

}  // namespace nodeprobe
