// File: pcie_probe.h
// Probe `pcie`: every GPU, NIC and NVMe device and each bridge above them —
// current vs maximum link speed and width, judged against what the path can
// carry (a Gen5 NIC in a Gen4 slot is not degraded).
#pragma once

#include <map>

#include "platform/pci_sysfs.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class PcieProbe : public Probe {
 public:
  std::string_view name() const override { return "pcie"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "PCIe link speed/width of GPUs, NICs, NVMe and their bridges vs "
           "what the path can carry";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// The testable core of Run().
// `sys` (may be null) is where config space is read for devices whose
// sysfs lacks max_link_*.
v1::ProbeResult JudgePcieLinks(
    const std::map<std::string, platform::RawPciDevice>& devices,
    const platform::FileTree* sys = nullptr);

// "gpu", "nic", "nvme", or "" for devices the probe does not judge on their
// own (bridges are judged as part of a judged device's path).
std::string PcieRole(uint16_t vendor, uint32_t pci_class);
// The same for a device read from sysfs ("" when its class or vendor is
// unreadable).
std::string PcieRoleOf(const platform::RawPciDevice& dev);

}  // namespace nodeprobe
