// File: pci_class.h
// What a PCI function is, from its vendor and class code: the one
// classifier of GPUs and NICs for every probe (pcie, locality, compute
// rails, storage, host-config), so that a device is never a GPU to one
// probe and nothing to another.
//
// The rule is NCCL's, as its topology files write it (src/graph/xml.cc
// reads the class and keeps its base class): base class 0x03 (display
// controller: VGA 0x0300, 3D 0x0302 and "other" 0x0380 alike) is a GPU,
// base class 0x02 (network) or 0x0c06 (InfiniBand) a NIC. A GPU must also
// be NVIDIA's (vendor 0x10de): a BMC's VGA function is not one.
#pragma once

#include <cstdint>
#include <string_view>

namespace nodeprobe::platform {

constexpr uint16_t kNvidiaVendor = 0x10de;

enum class PciKind { kOther, kNvidiaGpu, kNic, kNvme };

// `class_code` is the 24-bit class register (sysfs `class`: 0x030200).
PciKind ClassifyPci(uint32_t vendor, uint32_t class_code);
// The same from sysfs text ("0x10de", "0x030200"); unreadable is kOther.
PciKind ClassifyPci(std::string_view vendor, std::string_view class_code);

inline bool IsNvidiaGpu(uint32_t vendor, uint32_t class_code) {
  return ClassifyPci(vendor, class_code) == PciKind::kNvidiaGpu;
}

}  // namespace nodeprobe::platform
