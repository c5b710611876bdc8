// File: pcie_link.h
// PCIe link values as the kernel prints them, and what they are worth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "platform/file_tree.h"

namespace nodeprobe::pcie {

// GT/s from "8.0 GT/s PCIe", "2.5 GT/s", "16.0 GT/s PCIe". nullopt for the
// kernel's "Unknown" / "Unknown speed" (virtual bridges); an error for text
// that is neither.
absl::StatusOr<std::optional<double>> ParsePciLinkSpeed(std::string_view text);

// Lanes from "16"; nullopt for 0 (virtual bridges report 0); error otherwise.
absl::StatusOr<std::optional<int>> ParsePciLinkWidth(std::string_view text);

// 0x030200 from "0x030200".
absl::StatusOr<uint32_t> ParsePciClass(std::string_view text);
absl::StatusOr<uint16_t> ParsePciId(std::string_view text);  // "0x10de"

// PCIe generation of a per-lane rate: 2.5 -> 1, 5 -> 2, 8 -> 3, 16 -> 4,
// 32 -> 5, 64 -> 6; 0 for anything else.
int PcieGeneration(double gts);

// The maximum link a device supports, from its PCI config space (for
// kernels without max_link_speed/max_link_width in sysfs).
struct LinkCapability {
  double speed_gts = 0;
  int width = 0;
};
// FAILED_PRECONDITION when the bytes given stop before the capability
// (only the 64-byte header is readable without privileges), NOT_FOUND
// for a device without a PCI Express capability.
absl::StatusOr<LinkCapability> ParseLinkCapability(std::string_view config);

// Usable bandwidth per direction in GB/s (10^9 bytes):
//   GT/s × lanes × encoding / 8
// encoding = 8/10 for Gen1-2 (8b/10b), 128/130 for Gen3-5 (128b/130b), and
// 1 for Gen6 (PAM4 FLIT mode, before FLIT/FEC overhead).
double PcieBandwidthGBps(double gts, int width);

// What the link carries as TLP payload per direction in GB/s:
//   PcieBandwidthGBps x MPS / (MPS + 24)
// 24 B per TLP on Gen3 and later: the 4 B STP framing token (which holds
// the sequence number), a 16 B 4-DW header (64-bit addresses), 4 B LCRC;
// at the max payload size (MPS) of 256 B, the common value on servers.
// DLLPs (ACKs, flow-control credits) take a few percent more, left to the
// callers' bars. Used for NIC (transfer expectations) and GPU (copy
// bandwidth) links alike.
double PciePayloadGBps(double gts, int width, int max_payload = 256);

struct PcieLink {
  double gts = 0;
  int width = 0;
};
// current_link_speed/current_link_width of the sysfs device directory
// `device_dir` (relative to `sys`); nullopt when either is missing or
// unknown.
std::optional<PcieLink> ReadCurrentLink(const platform::FileTree& sys,
                                        const std::string& device_dir);

}  // namespace nodeprobe::pcie
