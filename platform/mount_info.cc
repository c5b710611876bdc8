#include "platform/mount_info.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace nodeprobe::platform {
namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
        s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool Covers(std::string_view point, std::string_view path) {
  if (point == "/") return !path.empty() && path[0] == '/';
  return path == point || (path.size() > point.size() && path.substr(0, point.size()) == point &&
                           path[point.size()] == '/');
}

}  // namespace

std::vector<Mount> ParseMountInfo(std::string_view text) {
  std::vector<Mount> mounts;
  for (absl::string_view line :
       absl::StrSplit(absl::string_view(text.data(), text.size()), '\n', absl::SkipEmpty())) {
    std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    // id parent maj:min root point options [optional...] - type source super
    size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (f.size() < 6 || dash + 3 > f.size()) continue;
    Mount m;
    m.device = std::string(f[2]);
    m.point = Unescape(f[4]);
    m.type = std::string(f[dash + 1]);
    m.source = Unescape(f[dash + 2]);
    m.options = dash + 3 < f.size() ? absl::StrCat(f[5], ",", f[dash + 3]) : std::string(f[5]);
    mounts.push_back(std::move(m));
  }
  return mounts;
}

std::optional<Mount> MountOf(const std::vector<Mount>& mounts, std::string_view path) {
  const Mount* best = nullptr;
  for (const Mount& m : mounts) {
    if (Covers(m.point, path) && (best == nullptr || m.point.size() >= best->point.size())) {
      best = &m;
    }
  }
  if (best == nullptr) return std::nullopt;
  return *best;
}

}  // namespace nodeprobe::platform
