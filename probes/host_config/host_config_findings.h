// File: host_config_findings.h
// The finding codes the host-config probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; host_config_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kHostSettingMismatch = {
    "HOST_SETTING_MISMATCH", v1::FAIL, "host-config",
    "a host setting differs from what the profile's host: section expects",
    "set it as the message says (the kernel command line for the IOMMU mode, sysctl for "
    "NUMA balancing and the rails' ARP/rp_filter, cpupower for the governor) and persist "
    "it, or change the profile"};
inline constexpr FindingCode kHostSettingNotReadable = {
    "HOST_SETTING_NOT_READABLE", v1::ERROR, "host-config",
    "a setting the profile's host: section judges could not be read",
    "run on the live host (or capture its /proc and /sys), with the permission to read "
    "them; a VM without cpufreq has no governor to judge: drop host.cpu_governor there"};

}  // namespace nodeprobe::findings
