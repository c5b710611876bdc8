// File: mtu_profile.cc
// Declares `mtu:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/mtu/mtu_profile.h"

#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     MtuExpectations& into) {
  if (key == "expected") {
    absl::StatusOr<double> n = r.Number(v, "mtu.expected");
    if (!n.ok()) return n.status();
    if (*n < 68 || *n > 65535 || *n != static_cast<int>(*n)) {
      return r.Error(v, "mtu.expected must be a whole number of bytes, 68 .. 65535");
    }
    into.expected = static_cast<int>(*n);
    return absl::OkStatus();
  }
  // interfaces
  if (!v.IsSequence()) return r.Error(v, "mtu.interfaces must be a list of interface names");
  for (const YAML::Node& n : v) {
    absl::StatusOr<std::string> name = r.String(n, "mtu.interfaces[]");
    if (!name.ok()) return name.status();
    into.interfaces.push_back(*name);
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection MtuProfileSection() {
  return DeclareSection<MtuExpectations>(
      {{"mtu.expected", "integer MTU", "not judged", "every checked interface's MTU"},
       {"mtu.interfaces", "list of interface names", "the RDMA netdevs only",
        "interfaces checked besides the RDMA netdevs"}},
      ReadKey);
}

}  // namespace nodeprobe
