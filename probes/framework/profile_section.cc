#include "probes/framework/profile_section.h"

#include <algorithm>

namespace nodeprobe {

absl::Status ReadSection(const ProfileSection& section, const ProfileReader& reader,
                         const YAML::Node& node, std::any& into) {
  if (!node.IsMap()) return reader.Error(node, section.name + " must be a mapping");
  const std::vector<std::string> known = SectionKeys(section.name);
  for (const auto& kv : node) {
    const std::string key = kv.first.as<std::string>();
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return reader.UnknownKey(kv.first, section.name + ".", known);
    }
    if (absl::Status s = section.read_key(reader, key, kv.second, into); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe
