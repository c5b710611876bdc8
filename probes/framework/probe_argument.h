// A probe's own argument, declared once beside the probe that reads it
// (path-mtu's peer, the job's GPU grant, the storm's writer count): the
// CLI makes its flag from the declaration (cli/probe_argument_flags.h), the
// task carries it by name (RunProbes.arguments) and the probe reads it back
// typed from ProbeContext.arguments. A new argument is one declaration and
// the probe's arguments() listing it; no hand copy through the CLI, the
// proto and the worker.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "google/protobuf/map.h"

namespace nodeprobe {

struct ProbeArgument {
  std::string_view name;        // key on the wire: "mtu_peer"
  std::string_view flag;        // "--mtu-peer"; "" when a stage sets it, never a user
  std::string_view value_name;  // "IPv4[:PORT]", "N"
  std::string_view help;
  // A whole number from `min` to `max` when min < max; text otherwise.
  int64_t min = 0;
  int64_t max = 0;
  // More checks of a value (text or whole): "" when good, else what is
  // wrong and the fix. Optional.
  std::string (*check)(std::string_view value) = nullptr;

  bool whole() const { return min < max; }
};

// "" when `value` fits its declaration, else what is wrong and the fix (the
// caller names the flag).
std::string CheckArgumentValue(const ProbeArgument& argument, std::string_view value);

// The arguments a probe run was given, by name; absent ones are "not
// given". Values arrive checked by the CLI or set by a stage; a value that
// does not parse here (an older or foreign sender) reads as absent.
class ProbeArguments {
 public:
  ProbeArguments() = default;
  explicit ProbeArguments(const google::protobuf::Map<std::string, std::string>& values)
      : values_(values.begin(), values.end()) {}

  void Set(const ProbeArgument& argument, std::string value) {
    values_[std::string(argument.name)] = std::move(value);
  }
  bool Given(const ProbeArgument& argument) const;
  // The text given, or "".
  std::string Text(const ProbeArgument& argument) const;
  // The whole number given, or `absent` when not given or not valid.
  int64_t Whole(const ProbeArgument& argument, int64_t absent) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace nodeprobe
