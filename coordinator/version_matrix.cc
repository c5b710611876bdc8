#include "coordinator/version_matrix.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

std::vector<ComponentRow> VersionMatrix(const std::vector<NodeComponents>& nodes,
                                        const std::map<std::string, std::string>& pins) {
  std::map<std::string, ComponentRow> rows;
  for (const NodeComponents& n : nodes) {
    for (const v1::Component& c : n.components) {
      const std::string key =
          c.device().empty() ? c.name() : absl::StrCat(c.name(), " ", c.device());
      ComponentRow& row = rows[key];
      row.component = key;
      row.name = c.name();
      // A value that was not read (not in a capture, unreadable) is not a
      // version and not "absent": it takes no part in drift.
      const bool not_read = !c.present() && c.detail().rfind("not captured", 0) == 0;
      row.versions[n.node] = c.present() ? c.version() : not_read ? "not captured" : "absent";
    }
  }
  std::vector<ComponentRow> out;
  for (auto& [key, row] : rows) {
    std::map<std::string, int> count;
    for (const auto& [node, v] : row.versions) {
      if (v != "absent" && v != "not captured") ++count[v];
    }
    int best = 0;
    for (const auto& [v, k] : count) {
      if (k >= best) {  // ascending order: a tie goes to the greater version
        best = k;
        row.majority = v;
      }
    }
    if (auto pin = pins.find(row.name); pin != pins.end()) row.pinned = pin->second;
    // Every node of the fleet is in the matrix: one that does not report
    // a component others have is drift too.
    for (const NodeComponents& n : nodes) {
      auto v = row.versions.find(n.node);
      const std::string found = v == row.versions.end() ? "" : v->second;
      // Drift only between values that were read: absent everywhere, or
      // not read here, is not drift.
      const bool off_majority =
          !row.majority.empty() && found != row.majority && found != "not captured";
      const bool off_pin = !row.pinned.empty() && !VersionMatches(row.pinned, found);
      if (off_majority || off_pin) row.drifted.push_back(n.node);
      if (off_pin) row.off_pin.push_back(n.node);
    }
    std::sort(row.drifted.begin(), row.drifted.end());
    std::sort(row.off_pin.begin(), row.off_pin.end());
    out.push_back(std::move(row));
  }
  return out;
}

std::vector<v1::Component> SettingsAsComponents(
    const google::protobuf::RepeatedPtrField<v1::Setting>& settings) {
  std::vector<v1::Component> out;
  for (const v1::Setting& s : settings) {
    v1::Component c;
    c.set_name(s.name());
    c.set_device(s.device());
    c.set_present(true);
    c.set_version(s.value());
    out.push_back(std::move(c));
  }
  return out;
}

google::protobuf::RepeatedPtrField<v1::Setting> SettingsOf(const v1::StageReport& report) {
  google::protobuf::RepeatedPtrField<v1::Setting> out;
  for (const v1::ProbeResult& p : report.results()) {
    if (p.has_config()) out.MergeFrom(p.config().settings());
  }
  return out;
}

}  // namespace nodeprobe::coordinator
