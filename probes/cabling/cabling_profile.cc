// File: cabling_profile.cc
// Declares `cabling:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/cabling/cabling_profile.h"

#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     CablingPlan& into) {
  if (key != "expect") return absl::OkStatus();  // the section's only key
  if (!v.IsMap()) {
    return r.Error(v,
                   "cabling.expect must map interfaces (or InfiniBand ports as device:port) "
                   "to switch names, e.g. ens1f0np0: \"leaf-rail-0-*\"");
  }
  for (const auto& e : v) {
    const std::string port = e.first.as<std::string>();
    absl::StatusOr<std::string> pattern = r.String(e.second, "cabling.expect." + port);
    if (!pattern.ok()) return pattern.status();
    if (port.empty() || pattern->empty()) {
      return r.Error(e.second, "cabling.expect needs an interface and a non-empty pattern");
    }
    into.expect.emplace_back(port, *pattern);
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection CablingProfileSection() {
  return DeclareSection<CablingPlan>(
      {{"cabling.expect", "mapping of netdev (or IB port) to a switch-name glob", "not checked",
        "the switch each port must be cabled to (LLDP, or the IB fabric one hop out)"}},
      ReadKey);
}

}  // namespace nodeprobe
