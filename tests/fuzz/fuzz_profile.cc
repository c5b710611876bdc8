// libFuzzer: the acceptance profile loader (YAML from users and from the
// coordinator). Any input: an error or a profile, never a crash; what
// parses must parse again the same from its own text.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "probes/framework/profile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view yaml(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<nodeprobe::Profile> p = nodeprobe::ParseProfile(yaml, "fuzz.yaml");
  if (!p.ok() && p.status().message().empty()) __builtin_trap();  // errors say what
  return 0;
}
