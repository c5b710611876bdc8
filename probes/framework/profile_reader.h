// File: profile_reader.h
// How a profile value is read: a number, a flag, a string, one of a few
// words, a list of strings, each checked, and every error one
// INVALID_ARGUMENT "SOURCE:LINE: what is wrong" at the value's line. The
// profile parser (profile.cc) and every section declared beside the part
// that reads it (profile_section.h) read through this, so all keys fail the
// same way.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace nodeprobe {

class ProfileReader {
 public:
  explicit ProfileReader(std::string_view source) : source_(source) {}

  // "SOURCE:LINE: what" as an INVALID_ARGUMENT, at `node`'s line.
  absl::Status Error(const YAML::Node& node, const std::string& what) const;
  // "SOURCE:LINE: what" for a warning at `node`.
  std::string Where(const YAML::Node& node, const std::string& what) const;
  // `section` ends in '.' (or is "" for the top level); `valid` are its keys.
  absl::Status UnknownKey(const YAML::Node& key, const std::string& section,
                          const std::vector<std::string>& valid) const;

  absl::StatusOr<double> Number(const YAML::Node& node, const std::string& key) const;
  // A whole number in [lo, hi] (bounds printed whole, never as 1.7e+10;
  // `why` follows them, e.g. " (16 GiB)"). The one bounded-integer reading
  // of every section.
  absl::StatusOr<int64_t> Whole(const YAML::Node& node, const std::string& key, int64_t lo,
                                int64_t hi, std::string_view why = "") const;
  absl::StatusOr<bool> Bool(const YAML::Node& node, const std::string& key) const;
  absl::StatusOr<std::string> String(const YAML::Node& node, const std::string& key) const;
  // A string with something in it besides blanks.
  absl::StatusOr<std::string> Text(const YAML::Node& node, const std::string& key) const;
  absl::StatusOr<std::string> OneOf(const YAML::Node& node, const std::string& key,
                                    const std::vector<std::string>& allowed) const;
  // A non-empty list of non-empty strings.
  absl::StatusOr<std::vector<std::string>> TextList(const YAML::Node& node,
                                                    const std::string& key) const;

  const std::string& source() const { return source_; }

 private:
  static std::string Describe(const YAML::Node& node);
  std::string source_;
};

}  // namespace nodeprobe
