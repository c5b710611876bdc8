// File: locality_profile.cc
// Declares `locality:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/locality/locality_profile.h"

#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     LocalityRules& into) {
  if (key != "rail_optimized") return absl::OkStatus();  // the section's only key
  absl::StatusOr<bool> b = r.Bool(v, "locality.rail_optimized");
  if (!b.ok()) return b.status();
  into.rail_optimized = *b;
  return absl::OkStatus();
}

}  // namespace

ProfileSection LocalityProfileSection() {
  return DeclareSection<LocalityRules>(
      {{"locality.rail_optimized", "true | false",
        LocalityRules{}.rail_optimized ? "true" : "false",
        "every GPU must have a NIC under its PCIe switch (FAIL, not WARN, when not)"}},
      ReadKey);
}

}  // namespace nodeprobe
