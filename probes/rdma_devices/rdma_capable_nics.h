// File: rdma_capable_nics.h
// PCI functions that should carry an RDMA device when their driver is
// loaded and bound: InfiniBand controllers by class, and network functions
// of RDMA-capable families by vendor/device id. One table, with where each
// entry comes from, so a node whose HCAs sit on the bus without an RDMA
// device (driver not loaded, not bound, firmware stuck) is not read as "no
// RDMA here".
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace nodeprobe::rdma {

struct RdmaCapableNic {
  uint16_t vendor;
  uint16_t device;  // 0: every network function of the vendor
  const char* model;
  const char* driver;  // the kernel RDMA driver that binds it
};

// The entry for a PCI function (class as the kernel prints it, 0x020700),
// or nullopt when it is not known to do RDMA.
std::optional<RdmaCapableNic> RdmaCapableNicFor(uint16_t vendor, uint16_t device,
                                                uint32_t pci_class);

}  // namespace nodeprobe::rdma
