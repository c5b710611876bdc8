// File: pci_sysfs.h
// Reads PCI devices from /sys/bus/pci/devices as raw strings, with the
// chain of bridges above each device taken from its /sys/devices path.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"

namespace nodeprobe::platform {

struct RawPciDevice {
  std::string address;  // 0000:01:00.0
  // Relative to the sysfs root: devices/pci0000:00/0000:00:02.1/0000:01:00.0
  std::string sys_path;
  // Bridges from the root port down to this device's parent.
  std::vector<std::string> upstream;
  // vendor, device, class, current/max link speed/width, numa_node.
  // Link attributes are NOT_FOUND on conventional PCI (virtual machines).
  std::map<std::string, RawAttr> attrs;
};

// Every device under bus/pci/devices, keyed by address. Bridges that only
// appear in another device's path are read too, so `upstream` always
// resolves.
absl::StatusOr<std::map<std::string, RawPciDevice>> ReadPciDevices(
    const FileTree& sys);

// True for a PCI address shaped like 0000:82:00.0.
bool IsPciAddress(const std::string& s);

// Bytes 0.. of the device's config space (up to 4096). Without root the
// kernel returns only the first 64 bytes, which is reported as such.
absl::StatusOr<std::string> ReadPciConfig(const FileTree& sys,
                                          const RawPciDevice& dev);

}  // namespace nodeprobe::platform
