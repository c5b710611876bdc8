// File: failure_profile.cc
// Declares `failure:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "coordinator/stages/failure/failure_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     FailureRules& into) {
  const std::string name = absl::StrCat(FailureRules::kSection, ".", key);
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "link_down_s") {
    if (*n < 0.1 || *n > 60) return r.Error(v, name + " must be 0.1 to 60 (seconds)");
    into.link_down_s = *n;
  } else {  // max_recover_s
    if (*n < 1 || *n > 600) return r.Error(v, name + " must be 1 to 600 (seconds)");
    into.max_recover_s = *n;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection FailureProfileSection() {
  const FailureRules d;  // what applies without a key
  return DeclareSection<FailureRules>(
      {{"failure.link_down_s", "seconds in [0.1, 60]", absl::StrCat(d.link_down_s),
        "how long the link stays down"},
       {"failure.max_recover_s", "seconds in [1, 600]", absl::StrCat(d.max_recover_s),
        "a good transfer must come within this of the link's return"}},
      ReadKey);
}

}  // namespace nodeprobe
