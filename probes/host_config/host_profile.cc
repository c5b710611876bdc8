// File: host_profile.cc
// Declares `host:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/host_config/host_profile.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     HostRules& into) {
  const std::string name = absl::StrCat(HostRules::kSection, ".", key);
  if (key == "iommu") {
    absl::StatusOr<std::string> s = r.OneOf(v, name, {"passthrough", "translated", "any"});
    if (!s.ok()) return s.status();
    into.iommu = *s;
  } else if (key == "numa_balancing" || key == "rail_arp") {
    absl::StatusOr<bool> b = r.Bool(v, name);
    if (!b.ok()) return b.status();
    (key == "numa_balancing" ? into.numa_balancing : into.rail_arp) = *b;
  } else if (key == "pcie_max_payload_min" || key == "pcie_max_read_request_min") {
    absl::StatusOr<double> n = r.Number(v, name);
    if (!n.ok()) return n.status();
    const int bytes = static_cast<int>(*n);
    if (bytes != *n || bytes < 128 || bytes > 4096 || (bytes & (bytes - 1)) != 0) {
      return r.Error(v, absl::StrCat(name,
                                     " must be a PCIe size in bytes: 128, 256, 512, "
                                     "1024, 2048 or 4096"));
    }
    (key == "pcie_max_payload_min" ? into.pcie_max_payload_min : into.pcie_max_read_request_min) =
        bytes;
  } else if (key == "hugepages_min") {
    absl::StatusOr<double> n = r.Number(v, name);
    if (!n.ok()) return n.status();
    if (*n < 0 || *n > 1e9 || *n != static_cast<int>(*n)) {
      return r.Error(v, absl::StrCat(name, " must be a whole number of pages"));
    }
    into.hugepages_min = static_cast<int>(*n);
  } else {  // cpu_governor
    absl::StatusOr<std::string> s = r.Text(v, name);
    if (!s.ok()) return s.status();
    // A governor is one kernel word: performance, powersave, schedutil, ...
    for (char c : *s) {
      if (!absl::ascii_islower(static_cast<unsigned char>(c)) && c != '_') {
        return r.Error(v, absl::StrCat(name,
                                       " must be a cpufreq governor's name, e.g. "
                                       "performance, got '",
                                       *s, "'"));
      }
    }
    into.cpu_governor = *s;
  }
  return absl::OkStatus();
}

}  // namespace

ProfileSection HostProfileSection() {
  return DeclareSection<HostRules>(
      {{"host.iommu", "passthrough | translated | any", "not judged",
        "the IOMMU mode GPU and NIC DMA run under (passthrough: no IOTLB lookups, what "
        "GPUDirect RDMA wants)"},
       {"host.numa_balancing", "true | false", "not judged",
        "the kernel's automatic NUMA balancing (it migrates pages under pinned RDMA buffers' "
        "neighbours)"},
       {"host.cpu_governor", "a cpufreq governor, e.g. performance", "not judged",
        "every CPU's frequency governor"},
       {"host.rail_arp", "true | false", "not judged",
        "RDMA rails sharing an IPv4 subnet need arp_ignore=1, arp_announce=2 and rp_filter 0 "
        "or 2, else ARP answers and replies leave on the wrong rail"},
       {"host.pcie_max_payload_min", "128 .. 4096 bytes", "not judged",
        "every GPU's and RDMA NIC's PCIe Max_Payload_Size at least this (config space; "
        "needs root)"},
       {"host.pcie_max_read_request_min", "128 .. 4096 bytes", "not judged",
        "every GPU's and RDMA NIC's PCIe Max_Read_Request_Size at least this: small reads "
        "split a NIC's DMA into more requests"},
       {"host.hugepages_min", "pages", "not judged",
        "HugePages_Total of the default huge page size at least this (/proc/meminfo), for "
        "workloads that register huge-page buffers"}},
      ReadKey);
}

}  // namespace nodeprobe
