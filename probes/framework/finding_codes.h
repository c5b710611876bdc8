// File: finding_codes.h
// Every finding code nodeprobe can emit, with what it means. Codes are a
// stable interface (scripts, dashboards and profile exceptions match them),
// so they are listed in one table: a profile exception naming a code that
// is not here is a typo, reported with the closest known code, and a test
// checks that every code the sources emit is listed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace nodeprobe {

struct FindingCode {
  const char* code;
  const char* meaning;
};

const std::vector<FindingCode>& FindingCodes();
bool IsKnownFindingCode(std::string_view code);
// The known code nearest by edit distance (for "did you mean").
std::string ClosestFindingCode(std::string_view code);

}  // namespace nodeprobe
