#include "probes/common/host_facts.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

namespace nodeprobe::hostfacts {

std::map<std::string, std::string> ParseOsRelease(std::string_view text) {
  std::map<std::string, std::string> out;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == absl::string_view::npos) continue;
    std::string value(line.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    out[std::string(line.substr(0, eq))] = value;
  }
  return out;
}

NvidiaDriver ParseNvidiaDriverVersion(std::string_view text) {
  NvidiaDriver out;
  absl::string_view first = absl::string_view(text.data(), text.size());
  first = first.substr(0, first.find('\n'));
  out.open_module = absl::StrContains(first, "Open Kernel Module");
  // The version is the first whitespace-separated token shaped like
  // digits.digits[.digits].
  for (absl::string_view token : absl::StrSplit(first, ' ', absl::SkipEmpty())) {
    int dots = 0;
    bool ok = !token.empty() && std::isdigit(static_cast<unsigned char>(token[0]));
    for (char c : token) {
      if (c == '.') {
        ++dots;
      } else if (!std::isdigit(static_cast<unsigned char>(c))) {
        ok = false;
      }
    }
    if (ok && dots >= 1 && dots <= 2 && token.back() != '.') {
      out.version = std::string(token);
      break;
    }
  }
  return out;
}

std::vector<std::string> RelevantCmdlineFlags(std::string_view cmdline) {
  std::vector<std::string> out;
  for (absl::string_view flag :
       absl::StrSplit(absl::string_view(cmdline.data(), cmdline.size()),
                      absl::ByAnyChar(" \t\n"), absl::SkipEmpty())) {
    if (absl::StartsWith(flag, "iommu=") ||
        absl::StartsWith(flag, "intel_iommu=") ||
        absl::StartsWith(flag, "amd_iommu=") ||
        (absl::StartsWith(flag, "pci=") && absl::StrContains(flag, "noacs"))) {
      out.emplace_back(flag);
    }
  }
  return out;
}

std::optional<std::pair<int, int>> ParseKernelRelease(std::string_view release) {
  std::vector<absl::string_view> parts = absl::StrSplit(
      absl::string_view(release.data(), release.size()), absl::ByAnyChar(".-"));
  int major = 0, minor = 0;
  if (parts.size() < 2 || !absl::SimpleAtoi(parts[0], &major) ||
      !absl::SimpleAtoi(parts[1], &minor)) {
    return std::nullopt;
  }
  return std::make_pair(major, minor);
}

}  // namespace nodeprobe::hostfacts
