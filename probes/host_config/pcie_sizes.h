// File: pcie_sizes.h
// A PCIe function's Max_Payload_Size and Max_Read_Request_Size, from the
// Device Control register of its PCI Express capability (id 0x10, in the
// first 256 bytes of config space, found through the list at 0x34):
//   Device Capabilities (cap + 4) bits 2:0   payload the function supports
//   Device Control      (cap + 8) bits 7:5   Max_Payload_Size  = 128 << n
//                                 bits 14:12 Max_Read_Request  = 128 << n
// Small values split every DMA of a GPU or NIC into more TLPs: a NIC
// reading at MRRS 512 where 4096 is allowed loses bandwidth at 400G.
#pragma once

#include <string_view>

#include "absl/status/statusor.h"

namespace nodeprobe::hostcfg {

struct PcieSizes {
  int max_payload = 0;       // bytes
  int max_read_request = 0;  // bytes
  int max_payload_supported = 0;
};

// FAILED_PRECONDITION when the capability lies past what was readable (the
// kernel gives non-root readers 64 bytes); NOT_FOUND for a function without
// a PCI Express capability (conventional PCI); DATA_LOSS for a malformed list.
absl::StatusOr<PcieSizes> ParsePcieSizes(std::string_view config);

}  // namespace nodeprobe::hostcfg
