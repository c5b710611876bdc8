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
  const char* key;     // "section.key"; "<collective>" or "<component>" where a family
  const char* type;    // "number in (0, 1]", "warn | fail", "list of ...", ...
  const char* absent;  // what applies without it
  const char* doc;
};

const std::vector<ProfileKey>& ProfileKeys();
// The keys of SECTION ("rdma", ...) without the section's prefix, as the
// parser lists them in "unknown key" errors; the top-level sections for "".
std::vector<std::string> SectionKeys(std::string_view section);

}  // namespace nodeprobe
