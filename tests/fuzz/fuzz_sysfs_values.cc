// libFuzzer: every parser of a sysfs/procfs value and of PCI config space.
// The first byte picks the parser, the rest is the file's content. Any
// input: a value or an error naming it, never a crash or a value outside
// what the parser promises.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "platform/host_text.h"
#include "probes/gpudirect/acs.h"
#include "probes/pcie/pcie_link.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"

namespace np = nodeprobe;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 14) {
    case 0: {
      auto v = np::pcie::ParsePciLinkSpeed(text);
      if (v.ok() && v->has_value() && !(**v > 0 && std::isfinite(**v))) __builtin_trap();
      break;
    }
    case 1: {
      auto v = np::pcie::ParsePciLinkWidth(text);
      if (v.ok() && v->has_value() && (**v < 1 || **v > 32)) __builtin_trap();
      break;
    }
    case 2: (void)np::pcie::ParsePciClass(text); break;
    case 3: (void)np::pcie::ParsePciId(text); break;
    case 4: {
      auto v = np::pcie::ParseLinkCapability(text);
      if (v.ok() && (v->width < 1 || !(v->speed_gts > 0))) __builtin_trap();
      break;
    }
    case 5: (void)np::gpudirect::ParseAcs(text); break;
    case 6: {
      auto v = np::rdma::ParseRateGbps(text);
      if (v.ok() && !(*v > 0 && *v <= 3200)) __builtin_trap();
      break;
    }
    case 7: (void)np::rdma::ParsePortState(text); break;
    case 8: (void)np::rdma::ParsePhysState(text); break;
    case 9: (void)np::rdma::ParseLinkLayer(text); break;
    case 10: (void)np::rdma::ParseGidType(text); break;
    case 11: (void)np::rdma::ClassifyGid(text); (void)np::rdma::GidIpv4Address(text); break;
    case 12: (void)np::rdma::ParseCounter(text); (void)np::rdma::ParseLid(text); break;
    case 13:
      // What FileTree hands on: always valid UTF-8, whatever the bytes.
      if (!np::platform::IsValidUtf8(np::platform::ValidUtf8(text))) __builtin_trap();
      break;
  }
  return 0;
}
