// Declares `guard:` (np_profile_section in this folder's CMakeLists).
#include "probes/framework/guard_profile.h"

#include "probes/framework/profile_section.h"

namespace nodeprobe {

ProfileSection GuardProfileSection() {
  return DeclareSection<GuardRules>(
      {{"guard.intrusive_in_sweep", "true | false",
        GuardRules{}.intrusive_in_sweep ? "true" : "false",
        "`run --sweep` also runs GPU copies, collectives and loopback transfers"}},
      [](const ProfileReader& r, const std::string& key, const YAML::Node& v,
         GuardRules& into) -> absl::Status {
        absl::StatusOr<bool> b = r.Bool(v, "guard." + key);
        if (!b.ok()) return b.status();
        into.intrusive_in_sweep = *b;
        return absl::OkStatus();
      });
}

}  // namespace nodeprobe
