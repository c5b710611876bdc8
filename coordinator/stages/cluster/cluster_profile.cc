// File: cluster_profile.cc
// Declares `cluster:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "coordinator/stages/cluster/cluster_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     ClusterRules& into) {
  const std::string name = absl::StrCat(ClusterRules::kSection, ".", key);
  if (key == "retest" || key == "latency") {
    absl::StatusOr<bool> b = r.Bool(v, name);
    if (!b.ok()) return b.status();
    (key == "retest" ? into.retest : into.latency) = *b;
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "max_latency_ratio") {
    if (*n <= 1 || *n > 1000) return r.Error(v, name + " must be above 1, e.g. 2.1");
    into.max_latency_ratio = *n;
  } else {  // suspect_share
    if (*n <= 0 || *n >= 1) return r.Error(v, name + " must be in (0, 1), e.g. 0.5");
    into.suspect_share = *n;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection ClusterProfileSection() {
  const ClusterRules d;  // what applies without a key
  auto flag = [](bool b) { return b ? "true" : "false"; };
  return DeclareSection<ClusterRules>(
      {{"cluster.suspect_share", "number in (0, 1)", absl::StrCat(d.suspect_share),
        "a node is suspect when low with more than this share of its partners"},
       {"cluster.retest", "true | false", flag(d.retest),
        "retest suspects against a node that passed everything"},
       {"cluster.latency", "true | false", flag(d.latency),
        "also a latency test per pair and direction"},
       {"cluster.max_latency_ratio", "number > 1", absl::StrCat(d.max_latency_ratio),
        "a latency above this times the run's best is bad"}},
      ReadKey);
}

}  // namespace nodeprobe
