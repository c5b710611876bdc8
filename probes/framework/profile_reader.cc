#include "probes/framework/profile_reader.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeprobe {
namespace {

// yaml-cpp lines are 0-based; 0 when the node has no mark.
int LineOf(const YAML::Node& node) { return node.Mark().line >= 0 ? node.Mark().line + 1 : 0; }

}  // namespace

absl::Status ProfileReader::Error(const YAML::Node& node, const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat(source_, ":", LineOf(node), ": ", what));
}

std::string ProfileReader::Where(const YAML::Node& node, const std::string& what) const {
  return absl::StrCat(source_, ":", LineOf(node), ": ", what);
}

absl::Status ProfileReader::UnknownKey(const YAML::Node& key, const std::string& section,
                                       const std::vector<std::string>& valid) const {
  return Error(key, absl::StrCat("unknown key '", section, key.as<std::string>(),
                                 "' (valid: ", absl::StrJoin(valid, ", "), ")"));
}

absl::StatusOr<double> ProfileReader::Number(const YAML::Node& node, const std::string& key) const {
  try {
    if (node.IsScalar()) {
      const double v = node.as<double>();
      if (!std::isfinite(v)) {
        return Error(node,
                     absl::StrCat(key, " must be a finite number, got '", Describe(node), "'"));
      }
      return v;
    }
  } catch (const YAML::Exception&) {
  }
  return Error(node, absl::StrCat(key, " must be a number, got '", Describe(node), "'"));
}

absl::StatusOr<int64_t> ProfileReader::Whole(const YAML::Node& node, const std::string& key,
                                             int64_t lo, int64_t hi, std::string_view why) const {
  absl::StatusOr<double> n = Number(node, key);
  if (!n.ok()) return n.status();
  // Compared as doubles first: a value past int64's range must not be cast.
  if (*n < static_cast<double>(lo) || *n > static_cast<double>(hi) || *n != std::floor(*n)) {
    return Error(node, absl::StrCat(key, " must be a whole number from ", lo, " to ", hi, std::string(why)));
  }
  return static_cast<int64_t>(*n);
}

absl::StatusOr<bool> ProfileReader::Bool(const YAML::Node& node, const std::string& key) const {
  try {
    if (node.IsScalar()) return node.as<bool>();
  } catch (const YAML::Exception&) {
  }
  return Error(node, absl::StrCat(key, " must be true or false, got '", Describe(node), "'"));
}

absl::StatusOr<std::string> ProfileReader::String(const YAML::Node& node,
                                                  const std::string& key) const {
  if (!node.IsScalar()) return Error(node, absl::StrCat(key, " must be a string"));
  return node.as<std::string>();
}

absl::StatusOr<std::string> ProfileReader::Text(const YAML::Node& node,
                                                const std::string& key) const {
  absl::StatusOr<std::string> s = String(node, key);
  if (s.ok() && absl::StripAsciiWhitespace(*s).empty()) {
    return Error(node, absl::StrCat(key, " is empty: write it or remove the key"));
  }
  return s;
}

absl::StatusOr<std::string> ProfileReader::OneOf(const YAML::Node& node, const std::string& key,
                                                 const std::vector<std::string>& allowed) const {
  absl::StatusOr<std::string> s = String(node, key);
  if (!s.ok()) return s.status();
  for (const std::string& a : allowed) {
    if (*s == a) return s;
  }
  return Error(node, absl::StrCat(key, " must be one of ", absl::StrJoin(allowed, ", "), ", got '",
                                  *s, "'"));
}

absl::StatusOr<std::vector<std::string>> ProfileReader::TextList(const YAML::Node& node,
                                                                 const std::string& key) const {
  if (!node.IsSequence() || node.size() == 0) {
    return Error(node, absl::StrCat(key, " must be a list with at least one entry"));
  }
  std::vector<std::string> out;
  for (const YAML::Node& item : node) {
    absl::StatusOr<std::string> s = Text(item, key + "[]");
    if (!s.ok()) return s.status();
    out.push_back(*std::move(s));
  }
  return out;
}

std::string ProfileReader::Describe(const YAML::Node& node) {
  if (node.IsScalar()) return node.as<std::string>();
  if (node.IsSequence()) return "a list";
  if (node.IsMap()) return "a mapping";
  return "nothing";
}

}  // namespace nodeprobe
