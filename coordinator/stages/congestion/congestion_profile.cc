// File: congestion_profile.cc
// Declares `congestion:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "coordinator/stages/congestion/congestion_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadPatterns(const ProfileReader& r, const std::string& name, const YAML::Node& v,
                          CongestionRules& into) {
  if (!v.IsSequence() || v.size() == 0) {
    return r.Error(v, name + " must be a list of incast, all_to_all");
  }
  into.incast = into.all_to_all = false;
  for (const auto& item : v) {
    absl::StatusOr<std::string> p = r.OneOf(item, name, {"incast", "all_to_all"});
    if (!p.ok()) return p.status();
    (*p == "incast" ? into.incast : into.all_to_all) = true;
  }
  return absl::OkStatus();
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     CongestionRules& into) {
  const std::string name = absl::StrCat(CongestionRules::kSection, ".", key);
  if (key == "patterns") return ReadPatterns(r, name, v, into);
  if (key == "group_size" || key == "incast_senders") {
    const bool group = key == "group_size";
    absl::StatusOr<int64_t> n = r.Whole(v, name, group ? 3 : 1, group ? 64 : 63);
    if (!n.ok()) return n.status();
    (group ? into.group_size : into.incast_senders) = static_cast<int>(*n);
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "min_fairness") {
    if (*n <= 0 || *n > 1) return r.Error(v, name + " must be in (0, 1]");
    into.min_fairness = *n;
  } else {  // max_latency_ratio
    if (*n < 1 || *n > 1e6) return r.Error(v, name + " must be >= 1");
    into.max_latency_ratio = *n;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection CongestionProfileSection() {
  const CongestionRules d;  // what applies without a key
  return DeclareSection<CongestionRules>(
      {{"congestion.patterns", "list of incast | all_to_all", "both", "what the stage runs"},
       {"congestion.group_size", "integer in [3, 64]", absl::StrCat(d.group_size),
        "nodes per group"},
       {"congestion.incast_senders", "integer in [1, 63]", "the group's other nodes",
        "senders per incast"},
       {"congestion.min_fairness", "number in (0, 1]", absl::StrCat(d.min_fairness),
        "Jain's index over the flows into a receiver; WARN below"},
       {"congestion.max_latency_ratio", "number >= 1", absl::StrCat(d.max_latency_ratio),
        "p99 latency under load over idle p99; WARN above"}},
      ReadKey);
}

}  // namespace nodeprobe
