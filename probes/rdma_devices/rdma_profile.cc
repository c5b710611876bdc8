// File: rdma_profile.cc
// Declares `rdma:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/rdma_devices/rdma_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     RdmaExpectations& into) {
  const std::string name = absl::StrCat(RdmaExpectations::kSection, ".", key);
  if (key == "expected_rate_gbps") {
    absl::StatusOr<double> n = r.Number(v, name);
    if (!n.ok()) return n.status();
    // 3200 Gb/s is above any port built today (XDR is 800).
    if (*n <= 0 || *n > 3200) return r.Error(v, name + " must be > 0 and <= 3200 (Gb/s)");
    into.rate_gbps = *n;
  } else if (key == "expected_link_layer") {
    absl::StatusOr<std::string> s = r.OneOf(v, name, {"InfiniBand", "Ethernet"});
    if (!s.ok()) return s.status();
    into.link_layer = *s;
  } else {  // error_counters
    absl::StatusOr<std::string> s = r.OneOf(v, name, {"warn", "fail"});
    if (!s.ok()) return s.status();
    into.error_counters = *s == "fail" ? v1::FAIL : v1::WARN;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection RdmaProfileSection() {
  return DeclareSection<RdmaExpectations>(
      {{"rdma.expected_rate_gbps", "number in (0, 3200] (Gb/s)", "not judged",
        "each ACTIVE RDMA port's rate"},
       {"rdma.expected_link_layer", "InfiniBand | Ethernet", "not judged",
        "each RDMA port's link layer"},
       {"rdma.error_counters", "warn | fail",
        RdmaExpectations{}.error_counters == v1::FAIL ? "fail" : "warn",
        "severity of non-zero port error counters"}},
      ReadKey);
}

}  // namespace nodeprobe
