#include "probes/framework/finding_codes.h"

#include <algorithm>

#include "absl/strings/ascii.h"

namespace nodeprobe {
namespace {

// Levenshtein distance; no library in our dependencies offers one, and the
// table is small.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

const std::vector<FindingCode>& FindingCodes() {
  // In code order: each folder declares its own (np_findings), so no
  // grouping is kept between them; `nodeprobe findings` groups by owner.
  static const std::vector<FindingCode> kCodes = [] {
    std::vector<FindingCode> all = DeclaredFindingCodes();
    std::sort(all.begin(), all.end(), [](const FindingCode& x, const FindingCode& y) {
      return std::string_view(x.code) < std::string_view(y.code);
    });
    return all;
  }();
  return kCodes;
}

const FindingCode* FindFindingCode(std::string_view code) {
  for (const FindingCode& c : FindingCodes()) {
    if (code == c.code) return &c;
  }
  return nullptr;
}

bool IsKnownFindingCode(std::string_view code) { return FindFindingCode(code) != nullptr; }

std::string ClosestFindingCode(std::string_view typed) {
  const std::string code = absl::AsciiStrToUpper(std::string(typed));  // codes are upper case
  const FindingCode* best = nullptr;
  size_t best_d = ~size_t{0};
  for (const FindingCode& c : FindingCodes()) {
    size_t d = EditDistance(code, c.code);
    if (d < best_d) {
      best_d = d;
      best = &c;
    }
  }
  return best ? best->code : "";
}

}  // namespace nodeprobe
