#include "platform/pci_class.h"

#include <charconv>
#include <string_view>

namespace nodeprobe::platform {
namespace {

// "0x10de" (or "10de", with a trailing newline or not) -> value; false
// when it is not whole hex.
bool Hex(std::string_view s, uint32_t* out) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.remove_suffix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 16);
  return ec == std::errc() && end == s.data() + s.size();
}

}  // namespace

PciKind ClassifyPci(uint32_t vendor, uint32_t class_code) {
  const uint32_t base = class_code >> 16;
  const uint32_t base_sub = class_code >> 8;
  if (base == 0x03) return vendor == kNvidiaVendor ? PciKind::kNvidiaGpu : PciKind::kOther;
  if (base == 0x02 || base_sub == 0x0c06) return PciKind::kNic;
  if (base_sub == 0x0108) return PciKind::kNvme;
  return PciKind::kOther;
}

PciKind ClassifyPci(std::string_view vendor, std::string_view class_code) {
  uint32_t v = 0, c = 0;
  if (!Hex(vendor, &v) || !Hex(class_code, &c)) return PciKind::kOther;
  return ClassifyPci(v, c);
}

}  // namespace nodeprobe::platform
