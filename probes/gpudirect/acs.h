// File: acs.h
// PCIe Access Control Services (ACS) from a device's config space. ACS is
// an extended capability (id 0x000D) in the space at 0x100..0xFFF; its
// control register (capability + 6) has, among others:
//   bit 0 Source Validation, bit 2 P2P Request Redirect,
//   bit 3 P2P Completion Redirect, bit 4 Upstream Forwarding,
//   bit 5 P2P Egress Control
// Request/Completion Redirect send peer-to-peer traffic up to the root
// complex, which breaks or slows GPUDirect RDMA between a GPU and a NIC
// under the same switch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace nodeprobe::gpudirect {

struct AcsState {
  bool present = false;  // the bridge has an ACS capability
  uint16_t capability = 0;
  uint16_t control = 0;
};

// FAILED_PRECONDITION when only the first 64 or 256 bytes are given (the
// kernel hides the rest from non-root readers); DATA_LOSS for a capability
// list that is malformed.
absl::StatusOr<AcsState> ParseAcs(std::string_view config);

// Request Redirect, Completion Redirect or Egress Control enabled: the bits
// that send GPU<->NIC peer traffic through the root complex (the rule and
// its sources are beside the code).
bool AcsBlocksPeerToPeer(uint16_t control);

// "SrcValid+ ReqRedir+ CmpltRedir- ..." as lspci prints the control word.
std::string DescribeAcsControl(uint16_t control);

}  // namespace nodeprobe::gpudirect
