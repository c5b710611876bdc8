#include "probes/host_config/pcie_sizes.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nodeprobe::hostcfg {
namespace {

constexpr uint8_t kPciExpressCapId = 0x10;

uint16_t Le16(std::string_view b, size_t off) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[off]) | static_cast<uint8_t>(b[off + 1])
                                                                  << 8);
}

absl::Status ShortRead(size_t have, size_t need) {
  return absl::FailedPreconditionError(
      absl::StrCat("only ", have,
                   " bytes of config space are readable, the PCI Express "
                   "capability needs ",
                   need, " (reading past 64 bytes needs root)"));
}

}  // namespace

absl::StatusOr<PcieSizes> ParsePcieSizes(std::string_view config) {
  if (config.size() < 0x40) return ShortRead(config.size(), 0x40);
  // Status register bit 4: the function has a capability list.
  if ((Le16(config, 0x06) & (1u << 4)) == 0) {
    return absl::NotFoundError("no capability list: not a PCI Express function");
  }
  size_t off = static_cast<uint8_t>(config[0x34]) & 0xfc;
  // At most 48 capabilities fit in 192 bytes: a longer walk is a loop.
  for (int guard = 0; guard < 48 && off != 0; ++guard) {
    if (off < 0x40) {
      return absl::DataLossError(absl::StrFormat("capability pointer 0x%x is in the header", off));
    }
    if (off + 12 > config.size()) return ShortRead(config.size(), off + 12);
    if (static_cast<uint8_t>(config[off]) == kPciExpressCapId) {
      const uint16_t devcap = Le16(config, off + 4);
      const uint16_t devctl = Le16(config, off + 8);
      PcieSizes s;
      s.max_payload_supported = 128 << (devcap & 0x7);
      s.max_payload = 128 << ((devctl >> 5) & 0x7);
      s.max_read_request = 128 << ((devctl >> 12) & 0x7);
      return s;
    }
    off = static_cast<uint8_t>(config[off + 1]) & 0xfc;
  }
  if (off != 0) return absl::DataLossError("capability list does not end");
  return absl::NotFoundError("no PCI Express capability (conventional PCI)");
}

}  // namespace nodeprobe::hostcfg
