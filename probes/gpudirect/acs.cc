#include "probes/gpudirect/acs.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nodeprobe::gpudirect {
namespace {

constexpr uint16_t kAcsCapId = 0x000D;
constexpr size_t kExtendedStart = 0x100;

uint32_t Le32(std::string_view b, size_t off) {
  return static_cast<uint8_t>(b[off]) |
         static_cast<uint8_t>(b[off + 1]) << 8 |
         static_cast<uint8_t>(b[off + 2]) << 16 |
         static_cast<uint32_t>(static_cast<uint8_t>(b[off + 3])) << 24;
}

uint16_t Le16(std::string_view b, size_t off) {
  return static_cast<uint16_t>(static_cast<uint8_t>(b[off]) |
                               static_cast<uint8_t>(b[off + 1]) << 8);
}

}  // namespace

absl::StatusOr<AcsState> ParseAcs(std::string_view config) {
  if (config.size() <= kExtendedStart) {
    return absl::FailedPreconditionError(absl::StrCat(
        "only ", config.size(),
        " bytes of config space are readable (the extended space needs root)"));
  }
  AcsState out;
  size_t off = kExtendedStart;
  // Each capability is at least 4 bytes past the last; 64 caps is far more
  // than the 4 KiB space can hold legitimately, so a loop is caught.
  for (int guard = 0; guard < 64; ++guard) {
    if (off + 8 > config.size()) {
      return absl::DataLossError(
          absl::StrFormat("extended capability at 0x%x runs past the config space", off));
    }
    uint32_t header = Le32(config, off);
    if (header == 0 || header == 0xffffffff) return out;  // empty list
    if ((header & 0xffff) == kAcsCapId) {
      out.present = true;
      out.capability = Le16(config, off + 4);
      out.control = Le16(config, off + 6);
      return out;
    }
    size_t next = header >> 20;
    if (next == 0) return out;
    if (next < kExtendedStart || next <= off) {
      return absl::DataLossError(
          absl::StrFormat("extended capability list points back to 0x%x", next));
    }
    off = next;
  }
  return absl::DataLossError("extended capability list does not end");
}

bool AcsBlocksPeerToPeer(uint16_t control) {
  // ACS Control (PCIe Base Specification, ACS Extended Capability): bit 0
  // Source Validation, 1 Translation Blocking, 2 P2P Request Redirect, 3
  // P2P Completion Redirect, 4 Upstream Forwarding, 5 P2P Egress Control,
  // 6 Direct Translated P2P. Peer-to-peer traffic between two devices below
  // the bridge is sent up to the root complex by Request Redirect,
  // Completion Redirect and Egress Control -- the set Linux's p2pdma checks
  // before allowing a peer-to-peer DMA (pci_bridge_has_acs_redir:
  // PCI_ACS_RR | PCI_ACS_CR | PCI_ACS_EC). Source Validation only checks the
  // requester ID, Upstream Forwarding concerns requests already headed
  // upstream, and Translation Blocking only translated (ATS) requests:
  // reported in the control word's evidence, not judged.
  constexpr uint16_t kRedirecting = 1u << 2 | 1u << 3 | 1u << 5;
  return (control & kRedirecting) != 0;
}

std::string DescribeAcsControl(uint16_t control) {
  static const char* kNames[] = {"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir",
                                 "UpstreamFwd", "EgressCtrl", "DirectTrans"};
  std::string out;
  for (int bit = 0; bit < 7; ++bit) {
    absl::StrAppend(&out, bit ? " " : "", kNames[bit],
                    (control >> bit) & 1 ? "+" : "-");
  }
  return out;
}

}  // namespace nodeprobe::gpudirect
