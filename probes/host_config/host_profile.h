// File: host_profile.h
// The profile's `host:` section: the host settings the fleet's design
// expects, each judged by the host-config probe (host_settings.h).
//   host:
//     iommu: passthrough        # passthrough | translated | any
//     numa_balancing: false     # the kernel's automatic NUMA balancing
//     cpu_governor: performance # every CPU's cpufreq governor
//     rail_arp: true            # rails sharing a subnet: arp_ignore=1,
//                               # arp_announce=2, rp_filter 0 or 2
//     pcie_max_payload_min: 256       # GPUs' and RDMA NICs' Max_Payload_Size
//     pcie_max_read_request_min: 4096 # and Max_Read_Request_Size, bytes
//     hugepages_min: 1024       # HugePages_Total (default size) at least
#pragma once

#include <optional>
#include <string>

namespace nodeprobe {

struct Profile;

struct HostRules {
  static constexpr char kSection[] = "host";  // its top-level key
  std::string iommu;                   // "" or "any": not judged
  std::optional<bool> numa_balancing;  // none: not judged
  std::string cpu_governor;            // "": not judged
  std::optional<bool> rail_arp;        // none or false: not judged
  std::optional<int> pcie_max_payload_min;       // bytes; none: not judged
  std::optional<int> pcie_max_read_request_min;  // bytes; none: not judged
  std::optional<int> hugepages_min;              // pages; none: not judged

  bool Any() const {
    return !iommu.empty() || numa_balancing || !cpu_governor.empty() || rail_arp ||
           pcie_max_payload_min || pcie_max_read_request_min || hugepages_min;
  }
};

}  // namespace nodeprobe
