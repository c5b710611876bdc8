// File: host_facts.h
// Parsers for host facts several probes read: os-release, the NVIDIA
// driver version file, the kernel command line and release.
#pragma once

#include <map>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

namespace nodeprobe::hostfacts {

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

// (major, minor) of a kernel release such as "6.1.0-18-amd64"; nullopt when
// it does not start with two numbers.
std::optional<std::pair<int, int>> ParseKernelRelease(std::string_view release);

}  // namespace nodeprobe::hostfacts
