// File: rdma_sysfs_parser.h
// Parsers for the strings the kernel writes under /sys/class/infiniband.
// They take values, not paths, so they are tested on strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nodeprobe::rdma {

struct PortState {
  int code = 0;
  std::string name;  // "ACTIVE", "LinkUp", ...
};

// "4: ACTIVE" (ports/N/state). Names: NOP DOWN INIT ARMED ACTIVE ACTIVE_DEFER.
absl::StatusOr<PortState> ParsePortState(std::string_view text);
// "5: LinkUp" (ports/N/phys_state). A logical state name here ("4: ACTIVE")
// is rejected: it means the file is not what it claims to be.
absl::StatusOr<PortState> ParsePhysState(std::string_view text);

// Gb/s from "56 Gb/sec (4X FDR)", "2.5 Gb/sec (1X SDR)", "10 Gb/sec (4X)";
// finite, > 0 and <= 3200 only.
absl::StatusOr<double> ParseRateGbps(std::string_view text);
// "InfiniBand" or "Ethernet"; anything else ("Unknown", garbage) is invalid.
absl::StatusOr<std::string> ParseLinkLayer(std::string_view text);

enum class GidType { kIbRoceV1, kRoceV2 };
// "IB/RoCE v1" or "RoCE v2" (gid_attrs/types/N).
absl::StatusOr<GidType> ParseGidType(std::string_view text);
std::string_view GidTypeName(GidType type);

enum class GidFamily { kIpv4Mapped, kLinkLocal, kIpv6 };
// Classifies a GID as the kernel prints it ("fe80:0000:...:bfa1").
absl::StatusOr<GidFamily> ClassifyGid(std::string_view gid);
std::string_view GidFamilyName(GidFamily family);
// "192.168.1.10" for an IPv4-mapped GID; "" otherwise.
std::string GidIpv4Address(std::string_view gid);

// A port counter: its value, or nullopt when the device has none to give
// ("N/A (no PMA)", as iWARP devices report).
absl::StatusOr<std::optional<uint64_t>> ParseCounter(std::string_view text);

// LIDs are hex ("0x3a4").
absl::StatusOr<uint32_t> ParseLid(std::string_view text);

}  // namespace nodeprobe::rdma
