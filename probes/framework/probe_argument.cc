#include "probes/framework/probe_argument.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe {

std::string CheckArgumentValue(const ProbeArgument& argument, std::string_view value) {
  // This abseil's string_view is its own type: std::string bridges.
  const std::string text(value);
  if (argument.whole()) {
    int64_t n = 0;
    if (!absl::SimpleAtoi(text, &n) || n < argument.min || n > argument.max) {
      return absl::StrCat("must be a whole number from ", argument.min, " to ", argument.max,
                          " (got '", text, "')");
    }
  }
  return argument.check != nullptr ? argument.check(value) : "";
}

bool ProbeArguments::Given(const ProbeArgument& argument) const {
  return values_.count(std::string(argument.name)) > 0;
}

std::string ProbeArguments::Text(const ProbeArgument& argument) const {
  auto it = values_.find(std::string(argument.name));
  return it == values_.end() ? "" : it->second;
}

int64_t ProbeArguments::Whole(const ProbeArgument& argument, int64_t absent) const {
  auto it = values_.find(std::string(argument.name));
  if (it == values_.end() || !CheckArgumentValue(argument, it->second).empty()) return absent;
  int64_t n = absent;
  return absl::SimpleAtoi(it->second, &n) ? n : absent;
}

}  // namespace nodeprobe
