#include "platform/identifiers.h"

#include <cctype>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {
namespace {

constexpr size_t kMaxName = 253;
constexpr size_t kMaxLabel = 63;

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Why `name` breaks the rule ("" when it does not); `extra` are further
// characters allowed inside a label.
std::string Problem(std::string_view name, std::string_view extra) {
  if (name.empty()) return "it is empty";
  if (name.size() > kMaxName) return absl::StrCat("it is longer than ", kMaxName, " characters");
  if (!Alnum(name.front()) || !Alnum(name.back())) {
    return "it must start and end with a letter or digit";
  }
  size_t label = 0;
  for (char c : name) {
    if (c == '.') {
      if (label == 0) return "it has an empty label ('..')";
      label = 0;
      continue;
    }
    if (!Alnum(c) && c != '-' && c != '_' && extra.find(c) == std::string_view::npos) {
      return absl::StrCat("it holds '", absl::CHexEscape(std::string(1, c)), "'");
    }
    if (++label > kMaxLabel) return absl::StrCat("a label is longer than ", kMaxLabel);
  }
  return "";
}

absl::Status Check(std::string_view what, std::string_view name, std::string_view extra) {
  const std::string why = Problem(name, extra);
  if (why.empty()) return absl::OkStatus();
  const std::string shown(name.substr(0, 80));
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(what), " '", absl::CHexEscape(shown), name.size() > 80 ? "...'" : "'",
      " is not a valid name: ", why, "; use letters, digits, '-', '_' and '.'",
      extra.empty() ? "" : absl::StrCat(" (and '", std::string(extra), "')"),
      ", starting and ending with a letter or digit"));
}

}  // namespace

bool IsValidNodeName(std::string_view name) { return Problem(name, "").empty(); }
bool IsValidRailName(std::string_view name) { return Problem(name, ":").empty(); }

absl::Status CheckNodeName(std::string_view what, std::string_view name) {
  return Check(what, name, "");
}
absl::Status CheckRailName(std::string_view what, std::string_view name) {
  return Check(what, name, ":");
}

}  // namespace nodeprobe::platform
