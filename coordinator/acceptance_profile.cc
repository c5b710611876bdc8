// File: acceptance_profile.cc
// Declares the `acceptance:` section (np_profile_section in this folder's
// CMakeLists): compiled into the profile library, so it may use only what
// that library links.
#include "coordinator/acceptance_profile.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadOwners(const ProfileReader& r, const YAML::Node& v, AcceptanceProfile& into) {
  if (!v.IsMap()) {
    return r.Error(v,
                   "acceptance.owners must map layers (host, fabric, kubernetes, storage, "
                   "application) to who answers for them");
  }
  std::vector<std::string> layers(kOwnerLayers.begin(), kOwnerLayers.end());
  for (const auto& kv : v) {
    const std::string layer = kv.first.as<std::string>();
    if (std::find(layers.begin(), layers.end(), layer) == layers.end()) {
      return r.UnknownKey(kv.first, "acceptance.owners.", layers);
    }
    absl::StatusOr<std::string> who = r.Text(kv.second, "acceptance.owners." + layer);
    if (!who.ok()) return who.status();
    into.owners[layer] = *who;
  }
  return absl::OkStatus();
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     AcceptanceProfile& into) {
  const std::string name = absl::StrCat(AcceptanceProfile::kSection, ".", key);
  if (key == "owners") return ReadOwners(r, v, into);
  if (key == "dashboards" || key == "limitations") {
    absl::StatusOr<std::vector<std::string>> list = r.TextList(v, name);
    if (!list.ok()) return list.status();
    if (key == "dashboards") {
      for (size_t i = 0; i < list->size(); ++i) {
        const std::string& url = (*list)[i];
        if (!absl::StartsWith(url, "https://") && !absl::StartsWith(url, "http://")) {
          return r.Error(v[i],
                         absl::StrCat(name, " entries must be http(s) URLs, got '", url, "'"));
        }
      }
      into.dashboards = *std::move(list);
    } else {
      into.limitations = *std::move(list);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<std::string> text = r.Text(v, name);
  if (!text.ok()) return text.status();
  if (key == "alert_owner") into.alert_owner = *text;
  if (key == "rollback") into.rollback = *text;
  if (key == "upgrade") into.upgrade = *text;
  if (key == "service_objective") into.service_objective = *text;
  return absl::OkStatus();
}

}  // namespace

ProfileSection AcceptanceProfileSection() {
  std::vector<ProfileKey> keys;
  for (const char* layer : kOwnerLayers) {
    keys.push_back({absl::StrCat(AcceptanceProfile::kSection, ".owners.", layer),
                    "text (a team, a person, an alias)", "gate item 'owners' not met",
                    absl::StrCat("who answers for the ", layer, " layer")});
  }
  auto unmet = [](const char* item) { return absl::StrCat("gate item '", item, "' not met"); };
  keys.push_back({"acceptance.alert_owner", "text", unmet("telemetry"),
                  "who owns the alerts on this platform's telemetry"});
  keys.push_back({"acceptance.dashboards", "list of http(s) URLs", unmet("telemetry"),
                  "the telemetry dashboards operators watch"});
  keys.push_back({"acceptance.rollback", "document reference or URL", unmet("rollback"),
                  "the rollback and recovery procedure"});
  keys.push_back({"acceptance.upgrade", "document reference or URL", unmet("lifecycle"),
                  "the lifecycle and upgrade sequence"});
  keys.push_back({"acceptance.limitations", "list of text", unmet("limitations"),
                  "known limitations (the profile's exceptions are listed beside them)"});
  keys.push_back({"acceptance.service_objective", "text", unmet("service_objective"),
                  "the service objective the workload must meet"});
  return DeclareSection<AcceptanceProfile>(std::move(keys), ReadKey);
}

}  // namespace nodeprobe
