// libFuzzer: the dcbnl reply parser on any bytes (replies come from the
// kernel, and from captures of other hosts replayed through `--capture`).
// Never a crash or a read past the reply; what it returns stays in range.
#include <cstddef>
#include <cstdint>
#include <string>

#include "platform/dcbnl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  // The first byte says where the rest splits: the DCBX reply, then the IEEE one.
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  const size_t cut = data[0] % (rest.size() + 1);
  absl::StatusOr<nodeprobe::platform::DcbState> s =
      nodeprobe::platform::ParseDcbReplies("fuzz0", rest.substr(cut), rest.substr(0, cut));
  if (s.ok()) {
    for (const auto& [dscp, prios] : s->dscp_prio) {
      if (dscp < 0 || dscp > 63 || prios.empty()) __builtin_trap();
      for (int p : prios) {
        if (p < 0 || p > 7) __builtin_trap();
      }
    }
  }
  return 0;
}
