// File: inventory_parser.h
// Parsers for the version sources the inventory reads.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace nodeprobe::inventory {

// KEY=value lines of /etc/os-release, quotes removed.
std::map<std::string, std::string> ParseOsRelease(std::string_view text);

struct NvidiaDriver {
  std::string version;      // "550.54.15"; empty when not found
  bool open_module = false;  // the open GPU kernel module (needed for dma-buf)
};
// /proc/driver/nvidia/version's first line, e.g.
// "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  ..."
NvidiaDriver ParseNvidiaDriverVersion(std::string_view text);

// The kernel command-line flags that decide IOMMU and ACS behaviour:
// iommu=, intel_iommu=, amd_iommu=, and pci= options containing noacs.
std::vector<std::string> RelevantCmdlineFlags(std::string_view cmdline);

}  // namespace nodeprobe::inventory
