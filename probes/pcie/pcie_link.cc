#include "probes/pcie/pcie_link.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace nodeprobe::pcie {
namespace {

absl::string_view Av(std::string_view s) { return {s.data(), s.size()}; }

absl::Status Invalid(std::string_view what, std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected ", Av(what), " '", Av(text), "'"));
}

}  // namespace

absl::StatusOr<std::optional<double>> ParsePciLinkSpeed(std::string_view text) {
  // drivers/pci/pci-sysfs.c and pci_speed_string(): "Unknown" (or
  // "Unknown speed" on older kernels), else "<rate> GT/s" with " PCIe"
  // appended since 5.x. Only the generations' rates exist: anything else
  // (including nan or inf, which strtod would accept) is not the kernel's.
  absl::string_view t = Av(text);
  if (t == "Unknown" || t == "Unknown speed") return std::optional<double>();
  size_t space = t.find(' ');
  double gts = 0;
  if (space == absl::string_view::npos ||
      (t.substr(space + 1) != "GT/s" && t.substr(space + 1) != "GT/s PCIe") ||
      !absl::SimpleAtod(t.substr(0, space), &gts) || PcieGeneration(gts) == 0) {
    return Invalid("link speed", text);
  }
  return std::optional<double>(gts);
}

absl::StatusOr<std::optional<int>> ParsePciLinkWidth(std::string_view text) {
  // The widths the PCIe specification defines; 0 ("link down" or a broken
  // read) is not a width a healthy device reports.
  int width = 0;
  if (!absl::SimpleAtoi(Av(text), &width)) return Invalid("link width", text);
  for (int w : {1, 2, 4, 8, 12, 16, 32}) {
    if (width == w) return std::optional<int>(width);
  }
  return Invalid(width == 0 ? "link width (0: the link is down or the value is broken)"
                            : "link width",
                 text);
}

absl::StatusOr<LinkCapability> ParseLinkCapability(std::string_view config) {
  // PCI config space: the capability list starts at the byte at 0x34 when
  // bit 4 of the status register (0x06) is set; each entry is {id, next}.
  // The PCI Express capability (id 0x10) holds Link Capabilities at +0x0C:
  // bits 3:0 the maximum link speed (1 = 2.5 GT/s ... 6 = 64 GT/s), bits
  // 9:4 the maximum width (PCIe Base Specification, 7.5.3.6).
  auto byte = [&](size_t at) { return static_cast<uint8_t>(config[at]); };
  if (config.size() < 0x40) {
    return absl::FailedPreconditionError(absl::StrCat(
        "only ", config.size(), " bytes of config space readable (an unprivileged read or a "
        "capture of the header only); the capability list starts beyond it"));
  }
  if ((byte(0x06) & 0x10) == 0) return absl::NotFoundError("no capability list");
  size_t at = byte(0x34) & 0xFC;
  for (int hops = 0; at >= 0x40 && hops < 48; ++hops) {
    if (at + 0x10 > config.size()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the PCI Express capability lies beyond the ", config.size(),
          " readable bytes of config space"));
    }
    if (byte(at) == 0x10) {
      const uint32_t caps = byte(at + 0x0C) | byte(at + 0x0D) << 8 | byte(at + 0x0E) << 16 |
                            static_cast<uint32_t>(byte(at + 0x0F)) << 24;
      static const double kSpeeds[] = {0, 2.5, 5, 8, 16, 32, 64};
      const uint32_t speed = caps & 0xF;
      const int width = static_cast<int>((caps >> 4) & 0x3F);
      if (speed == 0 || speed > 6 || width == 0) {
        return absl::InvalidArgumentError(
            absl::StrFormat("Link Capabilities 0x%08x name no speed or width", caps));
      }
      return LinkCapability{kSpeeds[speed], width};
    }
    at = byte(at + 1) & 0xFC;
  }
  return absl::NotFoundError("no PCI Express capability (a conventional PCI device)");
}

absl::StatusOr<uint32_t> ParsePciClass(std::string_view text) {
  absl::string_view t = Av(text);
  uint32_t v = 0;
  if (!absl::ConsumePrefix(&t, "0x") || !absl::SimpleHexAtoi(t, &v)) {
    return Invalid("PCI class", text);
  }
  return v;
}

absl::StatusOr<uint16_t> ParsePciId(std::string_view text) {
  absl::string_view t = Av(text);
  uint32_t v = 0;
  if (!absl::ConsumePrefix(&t, "0x") || !absl::SimpleHexAtoi(t, &v) || v > 0xffff) {
    return Invalid("PCI id", text);
  }
  return static_cast<uint16_t>(v);
}

int PcieGeneration(double gts) {
  static const double kRates[] = {2.5, 5, 8, 16, 32, 64};
  for (int i = 0; i < 6; ++i) {
    if (std::fabs(gts - kRates[i]) < 0.01) return i + 1;
  }
  return 0;
}

double PcieBandwidthGBps(double gts, int width) {
  int gen = PcieGeneration(gts);
  double encoding = gen <= 2 ? 8.0 / 10.0 : gen <= 5 ? 128.0 / 130.0 : 1.0;
  return gts * width * encoding / 8.0;
}

double PciePayloadGBps(double gts, int width, int max_payload) {
  const double payload = max_payload;
  return PcieBandwidthGBps(gts, width) * payload / (payload + 24.0);
}

std::optional<PcieLink> ReadCurrentLink(const platform::FileTree& sys,
                                        const std::string& device_dir) {
  absl::StatusOr<std::string> speed = sys.ReadValue(device_dir + "/current_link_speed");
  absl::StatusOr<std::string> width = sys.ReadValue(device_dir + "/current_link_width");
  if (!speed.ok() || !width.ok()) return std::nullopt;
  auto s = ParsePciLinkSpeed(*speed);
  auto w = ParsePciLinkWidth(*width);
  if (!s.ok() || !w.ok() || !s->has_value() || !w->has_value()) return std::nullopt;
  return PcieLink{**s, **w};
}

}  // namespace nodeprobe::pcie
