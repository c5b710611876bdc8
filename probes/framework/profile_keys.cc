#include "probes/framework/profile_keys.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {

namespace {

// The sections profile.cc parses itself (versions, exceptions: they apply
// to the whole profile); sections declared beside their readers add theirs
// after these (ProfileKeys()).
// What applies without a key is the default the code holds, never
// restated: a changed default changes --explain with it.

std::vector<ProfileKey> CentralKeys() {
  return {
      // versions: pinned components
      {"versions.<component>", "version string (a prefix by dotted parts)", "not pinned",
       "the expected version of a component (`nodeprobe run` lists them in the inventory)"},
      // exceptions: accepted findings
      {"exceptions[].code", "a finding code (`nodeprobe findings`)", "required",
       "the finding accepted: FAIL becomes WARN"},
      {"exceptions[].device", "device name; \"mlx5_3\" matches its ports", "every device",
       "which device's finding"},
      {"exceptions[].reason", "text", "required", "why it is accepted (kept in the result)"},
      {"exceptions[].owner", "text", "none", "who answers for it (recorded beside the finding)"},
      {"exceptions[].expires", "date (through that day, UTC) or RFC 3339 time", "never",
       "after it the exception is not applied and the finding says so"},
  };
}

}  // namespace

const std::vector<ProfileKey>& ProfileKeys() {
  static const std::vector<ProfileKey> kKeys = [] {
    std::vector<ProfileKey> keys = CentralKeys();
    for (const ProfileSection& s : DeclaredProfileSections()) {
      keys.insert(keys.end(), s.keys.begin(), s.keys.end());
    }
    return keys;
  }();
  return kKeys;
}

std::vector<std::string> SectionKeys(std::string_view section) {
  std::vector<std::string> out;
  for (const ProfileKey& k : ProfileKeys()) {
    const std::string_view key = k.key;  // "section.key" or "section.key.sub"
    const size_t dot = key.find('.');
    std::string_view head = key.substr(0, dot);
    if (head.size() > 2 && head.substr(head.size() - 2) == "[]") head.remove_suffix(2);
    if (section.empty()) {
      // Each section once, wherever its keys sit in the table.
      if (std::find(out.begin(), out.end(), head) == out.end()) out.emplace_back(head);
    } else if (head == section) {
      std::string_view name = key.substr(dot + 1);
      name = name.substr(0, name.find('.'));
      // acceptance.owners.host and .fabric are one key, owners.
      if (std::find(out.begin(), out.end(), name) != out.end()) continue;
      const size_t family = name.find("<collective>");
      if (family == std::string_view::npos) {
        if (name.find('<') == std::string_view::npos) out.emplace_back(name);
        continue;
      }
      // One key per collective NCCL runs.
      for (const char* c : {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast",
                            "reduce", "sendrecv"}) {
        out.push_back(std::string(name.substr(0, family)) + c +
                      std::string(name.substr(family + 12)));
      }
    }
  }
  return out;
}

}  // namespace nodeprobe
