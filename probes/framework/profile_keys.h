// File: profile_keys.h
// Every key an acceptance profile may hold, with its type or range, what
// applies when it is absent, and one line of what it does. The parser
// (profile.cc) takes each section's known keys from here, so a key it
// accepts is a key `nodeprobe profile --explain` prints; a test checks
// that every key the parser compares against is listed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nodeprobe {

struct ProfileKey {
  std::string key;     // "section.key"; "<collective>" or "<component>" where a family
  std::string type;    // "number in (0, 1]", "warn | fail", "list of ...", ...
  std::string absent;  // what applies without it
  std::string doc;
};

// The table here, then every declared section's keys (profile_section.h).
const std::vector<ProfileKey>& ProfileKeys();
// The keys of SECTION ("rdma", ...) without the section's prefix, as the
// parser lists them in "unknown key" errors; the top-level sections for "".
std::vector<std::string> SectionKeys(std::string_view section);

}  // namespace nodeprobe
