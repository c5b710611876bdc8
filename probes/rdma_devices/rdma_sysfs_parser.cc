#include "probes/rdma_devices/rdma_sysfs_parser.h"

#include <arpa/inet.h>

#include <array>
#include <cmath>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace nodeprobe::rdma {
namespace {

absl::Status Invalid(std::string_view what, std::string_view text) {
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected ", std::string(what), " '", std::string(text), "'"));
}

template <size_t N>
absl::StatusOr<PortState> ParseNumberedName(
    std::string_view text, std::string_view what,
    const std::array<std::pair<int, const char*>, N>& known) {
  std::pair<absl::string_view, absl::string_view> parts =
      absl::StrSplit(absl::string_view(text.data(), text.size()),
                     absl::MaxSplits(':', 1));
  int code = 0;
  std::string name(absl::StripAsciiWhitespace(parts.second));
  if (!absl::SimpleAtoi(parts.first, &code) || name.empty()) {
    return Invalid(what, text);
  }
  for (const auto& [k_code, k_name] : known) {
    if (code == k_code && name == k_name) return PortState{code, name};
  }
  return Invalid(what, text);
}

}  // namespace

absl::StatusOr<PortState> ParsePortState(std::string_view text) {
  // enum ib_port_state in the kernel (include/rdma/ib_verbs.h).
  static const std::array<std::pair<int, const char*>, 6> kStates = {{
      {0, "NOP"}, {1, "DOWN"}, {2, "INIT"}, {3, "ARMED"}, {4, "ACTIVE"},
      {5, "ACTIVE_DEFER"}}};
  return ParseNumberedName(text, "port state", kStates);
}

absl::StatusOr<PortState> ParsePhysState(std::string_view text) {
  // The IBTA PortPhysicalState values the kernel prints (drivers/infiniband/
  // core/sysfs.c, phys_state_to_str).
  static const std::array<std::pair<int, const char*>, 8> kStates = {{
      {0, "<unknown>"}, {1, "Sleep"}, {2, "Polling"}, {3, "Disabled"},
      {4, "PortConfigurationTraining"}, {5, "LinkUp"},
      {6, "LinkErrorRecovery"}, {7, "Phy Test"}}};
  return ParseNumberedName(text, "physical port state", kStates);
}

absl::StatusOr<double> ParseRateGbps(std::string_view text) {
  absl::string_view t(text.data(), text.size());
  size_t space = t.find(' ');
  if (space == absl::string_view::npos) return Invalid("port rate", text);
  // drivers/infiniband/core/sysfs.c rate_show(): "%d%s Gb/sec (%dX%s)",
  // a width times a lane speed, so always finite and positive; 3200 is
  // above any port built (XDR 12X is 2400). nan and inf, which strtod
  // accepts, are never the kernel's.
  // The number as the kernel prints it: digits, maybe ".5" (no sign,
  // exponent or hex, which SimpleAtod would take).
  const absl::string_view number = t.substr(0, space);
  const size_t dot = number.find('.');
  const auto digits = [](absl::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == absl::string_view::npos;
  };
  if (!digits(number.substr(0, dot)) ||
      (dot != absl::string_view::npos && !digits(number.substr(dot + 1)))) {
    return Invalid("port rate", text);
  }
  double gbps = 0;
  if (!absl::SimpleAtod(number, &gbps) || !std::isfinite(gbps) || gbps <= 0 ||
      gbps > 3200 || !absl::StartsWith(t.substr(space + 1), "Gb/sec")) {
    return Invalid("port rate", text);
  }
  // After "Gb/sec": nothing, or " (WIDTHX SPEED)" and nothing after it (a
  // NUL and garbage after a good rate is not the kernel's line).
  absl::string_view tail = t.substr(space + 1 + 6);
  if (!tail.empty()) {
    if (!absl::ConsumePrefix(&tail, " (") || !absl::ConsumeSuffix(&tail, ")") ||
        tail.find_first_not_of("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ") !=
            absl::string_view::npos) {
      return Invalid("port rate", text);
    }
  }
  return gbps;
}

absl::StatusOr<std::string> ParseLinkLayer(std::string_view text) {
  // link_layer_show(): "InfiniBand", "Ethernet", else "Unknown" (a driver
  // that does not say): only the first two can be judged.
  if (text == "InfiniBand" || text == "Ethernet") return std::string(text);
  return Invalid("link layer (InfiniBand or Ethernet expected)", text);
}

absl::StatusOr<GidType> ParseGidType(std::string_view text) {
  if (text == "IB/RoCE v1") return GidType::kIbRoceV1;
  if (text == "RoCE v2") return GidType::kRoceV2;
  return Invalid("GID type", text);
}

std::string_view GidTypeName(GidType type) {
  return type == GidType::kRoceV2 ? "RoCE v2" : "IB/RoCE v1";
}

absl::StatusOr<GidFamily> ClassifyGid(std::string_view gid) {
  in6_addr addr{};
  std::string s(gid);
  if (inet_pton(AF_INET6, s.c_str(), &addr) != 1) return Invalid("GID", gid);
  if (IN6_IS_ADDR_V4MAPPED(&addr)) return GidFamily::kIpv4Mapped;
  if (IN6_IS_ADDR_LINKLOCAL(&addr)) return GidFamily::kLinkLocal;
  return GidFamily::kIpv6;
}

std::string_view GidFamilyName(GidFamily family) {
  switch (family) {
    case GidFamily::kIpv4Mapped: return "ipv4";
    case GidFamily::kLinkLocal: return "link-local";
    case GidFamily::kIpv6: return "ipv6";
  }
  return "";
}

std::string GidIpv4Address(std::string_view gid) {
  in6_addr addr{};
  std::string s(gid);
  if (inet_pton(AF_INET6, s.c_str(), &addr) != 1 || !IN6_IS_ADDR_V4MAPPED(&addr)) {
    return "";
  }
  char buf[INET_ADDRSTRLEN];
  inet_ntop(AF_INET, &addr.s6_addr[12], buf, sizeof(buf));
  return buf;
}

absl::StatusOr<std::optional<uint64_t>> ParseCounter(std::string_view text) {
  absl::string_view t(text.data(), text.size());
  if (absl::StartsWith(t, "N/A")) return std::optional<uint64_t>();
  uint64_t v = 0;
  if (!absl::SimpleAtoi(t, &v)) return Invalid("counter value", text);
  return std::optional<uint64_t>(v);
}

absl::StatusOr<uint32_t> ParseLid(std::string_view text) {
  absl::string_view t(text.data(), text.size());
  uint32_t v = 0;
  if (!absl::ConsumePrefix(&t, "0x") || !absl::SimpleHexAtoi(t, &v)) {
    return Invalid("LID", text);
  }
  return v;
}

}  // namespace nodeprobe::rdma
