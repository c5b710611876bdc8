#include "probes/host_config/host_settings.h"

#include <arpa/inet.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "platform/gpu_inventory.h"
#include "platform/pci_class.h"
#include "probes/common/host_facts.h"
#include "probes/framework/result_util.h"
#include "probes/host_config/host_config_findings.h"
#include "probes/host_config/pcie_sizes.h"

namespace nodeprobe::hostcfg {
namespace {

void Mismatch(v1::ProbeResult* result, const std::string& setting, const std::string& found,
              const std::string& expected, const std::string& why) {
  AddFinding(result, findings::kHostSettingMismatch.code, setting,
             absl::StrCat(setting, " is ", found, ", the profile expects ", expected, ": ", why));
}

// A host-wide value for the fleet's configuration matrix.
void AddSetting(v1::ProbeResult* result, const std::string& name, const std::string& value) {
  v1::Setting* s = result->mutable_config()->add_settings();
  s->set_name(name);
  s->set_value(value);
}

void NotReadable(v1::ProbeResult* result, const std::string& setting, const std::string& why) {
  AddFinding(result, findings::kHostSettingNotReadable.code, setting,
             absl::StrCat(setting, " could not be read: ", why));
}

int JudgeIommu(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  if (absl::StatusOr<std::string> cmdline = in.proc->ReadValue("cmdline"); cmdline.ok()) {
    const std::vector<std::string> flags = hostfacts::RelevantCmdlineFlags(*cmdline);
    AddEvidence(result, in.proc->Path("cmdline"),
                flags.empty() ? "no IOMMU flags" : absl::StrJoin(flags, " "));
  }
  const IommuMode mode = ReadIommuMode(*in.sys);
  AddEvidence(result, "IOMMU mode",
              absl::StrCat(mode.mode.empty() ? "unknown" : mode.mode, " (", mode.basis, ")"));
  AddSetting(result, "host.iommu", mode.mode.empty() ? "unknown" : mode.mode);
  if (rules.iommu.empty() || rules.iommu == "any") return 0;
  if (mode.mode.empty()) {
    NotReadable(result, "IOMMU mode", mode.basis);
  } else if (rules.iommu == "passthrough" && mode.mode == "translated") {
    Mismatch(result, "IOMMU mode", "translated", "passthrough",
             absl::StrCat(mode.basis,
                          "; every GPU and NIC DMA pays an IOTLB lookup (boot with "
                          "iommu=pt)"));
  } else if (rules.iommu == "translated" && mode.mode != "translated") {
    Mismatch(result, "IOMMU mode", mode.mode, "translated",
             absl::StrCat(mode.basis, "; the design isolates devices with DMA translation"));
  }
  return 1;
}

int JudgeNumaBalancing(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  const std::string rel = "sys/kernel/numa_balancing";
  absl::StatusOr<std::string> v = in.proc->ReadValue(rel);
  // No file: a kernel built without it (or one NUMA node): it is off.
  const bool absent = !v.ok() && !in.proc->Exists(rel);
  const bool on = v.ok() && *v != "0";
  AddEvidence(result, in.proc->Path(rel),
              v.ok()   ? *v
              : absent ? "absent: no automatic NUMA balancing"
                       : "unreadable");
  AddSetting(result, "host.numa_balancing", !v.ok() && !absent ? "unreadable" : on ? "on" : "off");
  if (!rules.numa_balancing.has_value()) return 0;
  if (!v.ok() && !absent) {
    NotReadable(result, "kernel.numa_balancing", std::string(v.status().message()));
  } else if (on != *rules.numa_balancing) {
    Mismatch(result, "kernel.numa_balancing", on ? "on" : "off",
             *rules.numa_balancing ? "on" : "off",
             *rules.numa_balancing ? "the design relies on the kernel placing memory"
                                   : "it migrates pages under running jobs (sysctl "
                                     "kernel.numa_balancing=0)");
  }
  return 1;
}

int JudgeGovernor(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  std::map<std::string, std::vector<std::string>> cpus_by_governor;
  std::vector<std::string> unreadable;
  absl::StatusOr<std::vector<std::string>> cpus = in.sys->ListDir("devices/system/cpu");
  if (cpus.ok()) {
    for (const std::string& cpu : *cpus) {
      int n = 0;
      if (cpu.rfind("cpu", 0) != 0 || !absl::SimpleAtoi(cpu.substr(3), &n)) continue;
      const std::string file = absl::StrCat("devices/system/cpu/", cpu, "/cpufreq/scaling_governor");
      absl::StatusOr<std::string> g = in.sys->ReadValue(file);
      if (g.ok()) {
        cpus_by_governor[*g].push_back(cpu);
      } else if (in.sys->Exists(file)) {
        unreadable.push_back(cpu);  // there but not read: never taken as fine
      }
    }
  }
  std::vector<std::string> summary, names;
  for (const auto& [g, list] : cpus_by_governor) {
    summary.push_back(absl::StrCat(g, " on ", list.size(), " CPUs"));
    names.push_back(g);
  }
  AddSetting(result, "host.cpu_governor", names.empty() ? "none" : absl::StrJoin(names, ","));
  AddEvidence(result, in.sys->Path("devices/system/cpu/*/cpufreq/scaling_governor"),
              summary.empty() ? "no cpufreq governor exposed" : absl::StrJoin(summary, ", "));
  if (rules.cpu_governor.empty()) return 0;
  if (!unreadable.empty()) {
    NotReadable(result, "cpufreq governor",
                absl::StrCat(unreadable.size(), " CPU(s) expose scaling_governor but it could "
                             "not be read (first: ", unreadable.front(), ")"));
  }
  if (cpus_by_governor.empty()) {
    NotReadable(result, "cpufreq governor",
                "no CPU exposes cpufreq/scaling_governor (a VM, or cpufreq disabled)");
    return 1;
  }
  for (const auto& [g, list] : cpus_by_governor) {
    if (g == rules.cpu_governor) continue;
    Mismatch(result, "cpufreq governor",
             absl::StrCat(g, " on ", list.size(), " CPUs (e.g. ", list.front(), ")"),
             rules.cpu_governor, "clock ramps add latency to every collective step");
  }
  return 1;
}

// The effective value of a per-interface IPv4 sysctl that the kernel reads
// as the larger of conf/all and conf/<if> (arp_ignore, arp_announce,
// rp_filter).
absl::StatusOr<int> Effective(const platform::FileTree& proc, const std::string& netdev,
                              const std::string& name) {
  int all = 0, own = 0;
  absl::StatusOr<std::string> a = proc.ReadValue(absl::StrCat("sys/net/ipv4/conf/all/", name));
  absl::StatusOr<std::string> o =
      proc.ReadValue(absl::StrCat("sys/net/ipv4/conf/", netdev, "/", name));
  if (!a.ok()) return a.status();
  if (!o.ok()) return o.status();
  if (!absl::SimpleAtoi(*a, &all) || !absl::SimpleAtoi(*o, &own)) {
    return absl::InvalidArgumentError(absl::StrCat(name, " is not a number: ", *a, ", ", *o));
  }
  return std::max(all, own);
}

int JudgeRailArp(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  if (!rules.rail_arp.value_or(false)) return 0;
  if (!in.rails_known) {
    NotReadable(result, "rail ARP settings", "the rails' addresses are not in a capture");
    return 1;
  }
  const std::vector<std::string> shared = RailsSharingASubnet(in.rails);
  if (shared.empty()) {
    AddEvidence(result, "rail ARP settings",
                in.rails.empty() ? std::string("no RDMA rail with an IPv4 address here")
                                 : absl::StrCat(in.rails.size(),
                                                " rail addresses, no two rails in one IPv4 "
                                                "subnet: the defaults answer correctly"));
    return in.rails.empty() ? 0 : 1;
  }
  for (const std::string& netdev : shared) {
    std::vector<std::string> wrong;
    for (const auto& [name, ok] : std::vector<std::pair<std::string, std::set<int>>>{
             {"arp_ignore", {1}}, {"arp_announce", {2}}, {"rp_filter", {0, 2}}}) {
      absl::StatusOr<int> v = Effective(*in.proc, netdev, name);
      if (!v.ok()) {
        NotReadable(result, absl::StrCat(netdev, " ", name), std::string(v.status().message()));
        continue;
      }
      AddEvidence(result, absl::StrCat(netdev, " ", name), absl::StrCat(*v));
      if (!ok.count(*v)) wrong.push_back(absl::StrCat(name, "=", *v));
    }
    if (!wrong.empty()) {
      Mismatch(result, absl::StrCat(netdev, " ARP/rp_filter"), absl::StrJoin(wrong, " "),
               "arp_ignore=1 arp_announce=2 rp_filter=0 or 2",
               "rails share a subnet, so another rail can answer this one's ARP and replies "
               "leave on the wrong link (sysctl net.ipv4.conf.<if>.*)");
    }
  }
  return 1;
}

// The PCI functions whose DMA sizes matter, by address: what each is and
// where its config space is read: NVIDIA GPUs (vendor 0x10de, display
// class) and RDMA devices' functions (through class/infiniband/DEV/device,
// which a capture of the RDMA tree keeps).
std::map<std::string, std::pair<std::string, std::string>> DmaFunctions(
    const platform::FileTree& sys, const std::vector<platform::RawRdmaDevice>& rdma) {
  std::map<std::string, std::pair<std::string, std::string>> out;
  // Two small reads per function, not the whole bus walk the pcie probe does.
  for (const std::string& addr : platform::PciGpuAddresses(sys)) {
    out[addr] = {"GPU", "bus/pci/devices/" + addr + "/config"};
  }
  for (const platform::RawRdmaDevice& d : rdma) {
    if (!d.pci_address.empty()) {
      out[d.pci_address] = {d.name, absl::StrCat("class/infiniband/", d.name, "/device/config")};
    }
  }
  return out;
}

int JudgePcieSizes(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  const bool judged = rules.pcie_max_payload_min || rules.pcie_max_read_request_min;
  std::set<std::string> seen;
  const auto functions = DmaFunctions(*in.sys, in.rdma);
  for (const auto& [addr, function] : functions) {
    const std::string name = absl::StrCat(addr, " (", function.first, ")");
    absl::StatusOr<std::string> config = in.sys->ReadBytes(function.second, 4096);
    absl::StatusOr<PcieSizes> sizes = config.ok() ? ParsePcieSizes(*config) : config.status();
    if (!sizes.ok()) {
      AddEvidence(result, name + " PCIe payload/read request",
                  std::string(sizes.status().message()));
      if (judged) {
        NotReadable(result, name + " PCIe payload sizes", std::string(sizes.status().message()));
      }
      continue;
    }
    const std::string v = absl::StrCat(sizes->max_payload, "/", sizes->max_read_request);
    seen.insert(v);
    AddEvidence(
        result, name + " PCIe payload/read request",
        absl::StrCat(v, " bytes (payload supported up to ", sizes->max_payload_supported, ")"));
    if (rules.pcie_max_payload_min && sizes->max_payload < *rules.pcie_max_payload_min) {
      Mismatch(result, name + " Max_Payload_Size", absl::StrCat(sizes->max_payload, " bytes"),
               absl::StrCat("at least ", *rules.pcie_max_payload_min),
               "the root port and the BIOS set it; smaller payloads cost PCIe bandwidth");
    }
    if (rules.pcie_max_read_request_min &&
        sizes->max_read_request < *rules.pcie_max_read_request_min) {
      Mismatch(result, name + " Max_Read_Request_Size",
               absl::StrCat(sizes->max_read_request, " bytes"),
               absl::StrCat("at least ", *rules.pcie_max_read_request_min),
               "each DMA read is split into more requests (setpci, or the NIC's firmware "
               "setting)");
    }
  }
  if (!seen.empty()) {
    AddSetting(result, "host.pcie_payload_read_request", absl::StrJoin(seen, ","));
  }
  if (!judged) return 0;
  if (functions.empty()) {
    AddEvidence(result, "PCIe payload sizes", "no GPU or RDMA device here: nothing to judge");
    return 0;
  }
  return 1;
}

// HugePages_Total of the default size from meminfo.
int JudgeHugepages(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  absl::StatusOr<std::string> meminfo = in.proc->ReadValue("meminfo");
  std::optional<int64_t> total;
  std::string size = "?", garbled;
  if (meminfo.ok()) {
    for (absl::string_view line : absl::StrSplit(*meminfo, '\n')) {
      std::vector<absl::string_view> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
      int64_t n = 0;
      if (f.size() >= 1 && f[0] == "HugePages_Total:") {
        if (f.size() >= 2 && absl::SimpleAtoi(f[1], &n) && n >= 0) {
          total = n;
        } else {
          garbled = std::string(line);  // there, but not a count: not "no hugetlbfs"
        }
      }
      if (f.size() >= 3 && f[0] == "Hugepagesize:") size = absl::StrCat(f[1], " ", f[2]);
    }
  }
  if (total) {
    AddEvidence(result, in.proc->Path("meminfo") + " HugePages_Total",
                absl::StrCat(*total, " of ", size));
    AddSetting(result, "host.hugepages", absl::StrCat(*total, " x ", size));
  }
  if (!rules.hugepages_min) return 0;
  if (!total) {
    NotReadable(result, "HugePages_Total",
                !meminfo.ok()       ? std::string(meminfo.status().message())
                : !garbled.empty() ? absl::StrCat("meminfo's line is not a count: '", garbled, "'")
                                   : "meminfo has no HugePages_Total (a kernel without hugetlbfs)");
  } else if (*total < *rules.hugepages_min) {
    Mismatch(result, "HugePages_Total", absl::StrCat(*total, " of ", size),
             absl::StrCat("at least ", *rules.hugepages_min),
             "reserve them at boot (hugepages= on the kernel command line) or with sysctl "
             "vm.nr_hugepages");
  }
  return 1;
}

}  // namespace

IommuMode ReadIommuMode(const platform::FileTree& sys) {
  absl::StatusOr<std::vector<std::string>> units = sys.ListDir("class/iommu");
  absl::StatusOr<std::vector<std::string>> groups = sys.ListDir("kernel/iommu_groups");
  if ((!units.ok() || units->empty()) && (!groups.ok() || groups->empty())) {
    if (!sys.Exists("class")) return {"", absl::StrCat(sys.Path("class"), " is not readable")};
    return {"off", absl::StrCat("no IOMMU in ", sys.Path("class/iommu"))};
  }
  std::map<std::string, int> types;
  int unreadable = 0;
  if (groups.ok()) {
    for (const std::string& g : *groups) {
      absl::StatusOr<std::string> t =
          sys.ReadValue(absl::StrCat("kernel/iommu_groups/", g, "/type"));
      if (t.ok()) {
        ++types[*t];
      } else {
        ++unreadable;
      }
    }
  }
  std::vector<std::string> seen;
  for (const auto& [t, n] : types) seen.push_back(absl::StrCat(n, " groups ", t));
  if (unreadable > 0) seen.push_back(absl::StrCat(unreadable, " groups unreadable"));
  const std::string basis =
      absl::StrCat(sys.Path("kernel/iommu_groups/*/type"), ": ",
                   seen.empty() ? "none readable" : absl::StrJoin(seen, ", "));
  if (types.empty()) return {"", basis};
  for (const auto& [t, n] : types) {
    if (t.rfind("DMA", 0) == 0) return {"translated", basis};
  }
  // Passthrough only when every group says so; a type the kernel does not
  // write (or one not read) leaves the mode unknown, never the good value.
  for (const auto& [t, n] : types) {
    if (t != "identity" && t != "blocked" && t != "unmanaged") return {"", basis};
  }
  if (unreadable > 0) return {"", basis};
  return {"passthrough", basis};
}

std::vector<std::string> RailsSharingASubnet(const std::vector<RailAddress>& rails) {
  std::map<std::pair<uint32_t, int>, std::set<std::string>> by_subnet;
  for (const RailAddress& r : rails) {
    in_addr addr{};
    if (inet_pton(AF_INET, r.ipv4.c_str(), &addr) != 1 || r.prefix_len < 0 || r.prefix_len > 32) {
      continue;
    }
    const uint32_t mask = r.prefix_len == 0 ? 0 : ~uint32_t{0} << (32 - r.prefix_len);
    by_subnet[{ntohl(addr.s_addr) & mask, r.prefix_len}].insert(r.netdev);
  }
  std::set<std::string> out;
  for (const auto& [subnet, netdevs] : by_subnet) {
    if (netdevs.size() > 1) out.insert(netdevs.begin(), netdevs.end());
  }
  return {out.begin(), out.end()};
}

int JudgeHostSettings(const HostInputs& in, const HostRules& rules, v1::ProbeResult* result) {
  int judged = JudgeIommu(in, rules, result);  // one after the other: evidence in order
  judged += JudgeNumaBalancing(in, rules, result);
  judged += JudgeGovernor(in, rules, result);
  judged += JudgeRailArp(in, rules, result);
  judged += JudgePcieSizes(in, rules, result);
  judged += JudgeHugepages(in, rules, result);
  return judged;
}

}  // namespace nodeprobe::hostcfg
