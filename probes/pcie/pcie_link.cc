// File: pcie_link.cc
#include "probes/pcie/pcie_link.h"

#include <cmath>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
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
  absl::string_view t = Av(text);
  if (absl::StartsWith(t, "Unknown")) return std::optional<double>();
  size_t space = t.find(' ');
  double gts = 0;
  if (space == absl::string_view::npos ||
      !absl::StartsWith(t.substr(space + 1), "GT/s") ||
      !absl::SimpleAtod(t.substr(0, space), &gts) || gts <= 0) {
    return Invalid("link speed", text);
  }
  return std::optional<double>(gts);
}

absl::StatusOr<std::optional<int>> ParsePciLinkWidth(std::string_view text) {
  int width = 0;
  if (!absl::SimpleAtoi(Av(text), &width) || width < 0 || width > 32) {
    return Invalid("link width", text);
  }
  if (width == 0) return std::optional<int>();
  return std::optional<int>(width);
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

}  // namespace nodeprobe::pcie
