// File: host_settings.h
// The host settings RDMA and GPU work depends on, read from /proc and /sys
// and judged against the profile's host: section (host_profile.h): the
// IOMMU mode, automatic NUMA balancing, the CPU frequency governor, and
// the ARP/reverse-path settings of rails that share an IPv4 subnet. Every
// value read is evidence whether or not a rule judges it.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "probes/host_config/host_profile.h"

namespace nodeprobe::hostcfg {

// One IPv4 address on an RDMA rail's netdev.
struct RailAddress {
  std::string netdev;
  std::string ipv4;
  int prefix_len = 32;
};

struct HostInputs {
  const platform::FileTree* proc = nullptr;  // cmdline, sys/kernel, sys/net/ipv4/conf
  const platform::FileTree* sys = nullptr;   // kernel/iommu_groups, devices/system/cpu
  std::vector<RailAddress> rails;
  bool rails_known = true;  // false: a capture, which holds no addresses
  // The RDMA devices under `sys` (read once by the probe): their PCI
  // functions' payload sizes are judged beside the GPUs'.
  std::vector<platform::RawRdmaDevice> rdma;
};

// "passthrough", "translated", "off" (no IOMMU active) or "" (unknown), and
// what it rests on.
struct IommuMode {
  std::string mode;
  std::string basis;
};
IommuMode ReadIommuMode(const platform::FileTree& sys);

// The rails' netdevs that share an IPv4 subnet with another rail's netdev.
std::vector<std::string> RailsSharingASubnet(const std::vector<RailAddress>& rails);

// Evidence for every setting, findings for each the rules judge; returns
// how many settings were judged (0: the profile asks for none).
int JudgeHostSettings(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result);

}  // namespace nodeprobe::hostcfg
