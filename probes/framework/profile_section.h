// File: profile_section.h
// A profile section declared by the part that reads it, in that part's own
// folder: its keys (type, what applies without them, one line of doc), the
// struct it fills and how each key is read into it. The folder's
// CMakeLists names it with np_profile_section(); the build collects every
// declared section into the profile library (the generated
// declared_profile_sections.cc), so every binary that reads a profile
// knows every section, and `nodeprobe profile --explain` prints its keys.
// Adding a key touches that one folder.
//
//   // coordinator/acceptance_profile.cc
//   struct AcceptanceProfile { static constexpr char kSection[] = "acceptance"; ... };
//   ProfileSection AcceptanceProfileSection() {
//     return DeclareSection<AcceptanceProfile>({{"acceptance.rollback", ...}},
//         [](const ProfileReader& r, const std::string& key, const YAML::Node& v,
//            AcceptanceProfile& into) -> absl::Status { ... });
//   }
//   // its readers
//   const AcceptanceProfile& a = profile.Section<AcceptanceProfile>();
#pragma once

#include <any>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "probes/framework/profile_keys.h"
#include "probes/framework/profile_reader.h"

namespace nodeprobe {

struct ProfileSection {
  std::string name;              // the top-level key
  std::vector<ProfileKey> keys;  // "name.key" or "name.key.sub" each
  std::any defaults;             // the section's struct when the profile has no such section
  // Reads one key of the section's mapping into `into` (holding the struct).
  std::function<absl::Status(const ProfileReader&, const std::string& key, const YAML::Node& value,
                             std::any& into)>
      read_key;
};

// A section whose value is a T (default-constructed when absent), read key
// by key; the generic loop (ReadSection) checks the mapping and the keys.
template <typename T>
ProfileSection DeclareSection(
    std::string name, std::vector<ProfileKey> keys,
    std::function<absl::Status(const ProfileReader&, const std::string& key,
                               const YAML::Node& value, T& into)>
        read) {
  ProfileSection s;
  s.name = std::move(name);
  s.keys = std::move(keys);
  s.defaults = T{};
  s.read_key = [read = std::move(read)](const ProfileReader& r, const std::string& key,
                                        const YAML::Node& value, std::any& into) {
    return read(r, key, value, std::any_cast<T&>(into));
  };
  return s;
}

// The same, named by T::kSection: a section is its struct's declaration.
template <typename T>
ProfileSection DeclareSection(
    std::vector<ProfileKey> keys,
    std::function<absl::Status(const ProfileReader&, const std::string& key,
                               const YAML::Node& value, T& into)>
        read) {
  return DeclareSection<T>(T::kSection, std::move(keys), std::move(read));
}

// Every section declared with np_profile_section(), in name order.
const std::vector<ProfileSection>& DeclaredProfileSections();

// Reads `node` (the section's mapping) into `into`: a key the section does
// not declare is an error naming the ones it does.
absl::Status ReadSection(const ProfileSection& section, const ProfileReader& reader,
                         const YAML::Node& node, std::any& into);

}  // namespace nodeprobe
