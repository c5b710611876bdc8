// File: host_profile.h
// The profile's `host:` section: the host settings the fleet's design
// expects, each judged by the host-config probe (host_settings.h).
//   host:
//     iommu: passthrough        # passthrough | translated | any
//     numa_balancing: false     # the kernel's automatic NUMA balancing
//     cpu_governor: performance # every CPU's cpufreq governor
//     rail_arp: true            # rails sharing a subnet: arp_ignore=1,
//                               # arp_announce=2, rp_filter 0 or 2
#pragma once

#include <optional>
#include <string>

namespace nodeprobe {

struct Profile;

struct HostRules {
  std::string iommu;                   // "" or "any": not judged
  std::optional<bool> numa_balancing;  // none: not judged
  std::string cpu_governor;            // "": not judged
  std::optional<bool> rail_arp;        // none or false: not judged
};

const HostRules& HostRulesOf(const Profile& profile);
HostRules& MutableHostRules(Profile& profile);

}  // namespace nodeprobe
