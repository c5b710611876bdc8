#include "probes/rdma_devices/compute_rails.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "platform/pci_sysfs.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "platform/pci_class.h"

namespace nodeprobe::rdma {
namespace {

uint32_t Hex(const platform::RawPciDevice& dev, const char* attr) {
  const platform::RawAttr& a = dev.attrs.at(attr);
  return a.value.ok() ? static_cast<uint32_t>(strtoul(a.value->c_str(), nullptr, 16)) : 0;
}

bool IsNvidiaGpu(const platform::RawPciDevice& dev) {
  return platform::IsNvidiaGpu(Hex(dev, "vendor"), Hex(dev, "class"));
}

// The device's NUMA node; -1 when unknown (sysfs says -1 on one-node
// machines and for devices the firmware did not place).
int NumaNode(const platform::RawPciDevice& dev) {
  auto it = dev.attrs.find("numa_node");
  if (it == dev.attrs.end() || !it->second.value.ok()) return -1;
  int n = -1;
  return absl::SimpleAtoi(*it->second.value, &n) ? n : -1;
}

size_t CommonPrefix(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = 0;
  while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
  return n;
}

// The RDMA NICs nearest to some GPU, each with its GPU (NearestGpuOfNics),
// or none when there is no GPU.
std::map<std::string, std::string> GpuLocalNics(
    const platform::FileTree& sys, const std::vector<platform::RawRdmaDevice>& devices) {
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> pci = platform::ReadPciDevices(sys);
  if (!pci.ok()) return {};
  return NearestGpuOfNics(*pci, devices);
}

// The interface of the port's IPv4 GID: a RoCE address on a VLAN is on the
// VLAN interface, which is what NCCL_SOCKET_IFNAME and the routes name.
std::string AddressNetdev(const platform::RawRdmaDevice& dev, uint32_t port,
                          const PortNetdevs& p) {
  for (const platform::RawRdmaPort& raw : dev.ports) {
    if (raw.port != port) continue;
    for (const platform::RawGid& g : raw.gids) {
      if (g.gid.value.ok() && !GidIpv4Address(*g.gid.value).empty() && g.netdev.value.ok()) {
        return *g.netdev.value;
      }
    }
  }
  return p.netdevs.empty() ? "" : p.netdevs.front();
}

}  // namespace

std::set<std::string> GpuLocalNicAddresses(
    const std::map<std::string, platform::RawPciDevice>& pci,
    const std::vector<platform::RawRdmaDevice>& devices) {
  std::set<std::string> out;
  for (const auto& [nic, gpu] : NearestGpuOfNics(pci, devices)) out.insert(nic);
  return out;
}

std::map<std::string, std::string> NearestGpuOfNics(
    const std::map<std::string, platform::RawPciDevice>& pci,
    const std::vector<platform::RawRdmaDevice>& devices) {
  std::map<std::string, std::string> out;
  std::vector<const platform::RawPciDevice*> nics;
  for (const platform::RawRdmaDevice& d : devices) {
    if (auto it = pci.find(d.pci_address); it != pci.end()) nics.push_back(&it->second);
  }
  for (const auto& [addr, dev] : pci) {
    if (!IsNvidiaGpu(dev) || nics.empty()) continue;
    size_t best = 0;
    for (const auto* nic : nics) best = std::max(best, CommonPrefix(dev.upstream, nic->upstream));
    // No NIC shares a bridge with the GPU (a switch-less server, each on its
    // own root port): the NICs of its NUMA node are its nearest (NCCL's PHB
    // against SYS); only when that says nothing does every NIC count.
    const int numa = best == 0 ? NumaNode(dev) : -1;
    bool same_node = false;
    for (const auto* nic : nics) same_node |= numa >= 0 && NumaNode(*nic) == numa;
    for (const auto* nic : nics) {
      if (CommonPrefix(dev.upstream, nic->upstream) != best) continue;
      if (same_node && NumaNode(*nic) != numa) continue;
      out.emplace(nic->address, addr);  // the first GPU (by address) keeps it
    }
  }
  return out;
}

std::vector<ComputeRail> ComputeRails(const std::vector<platform::RawRdmaDevice>& devices,
                                      const platform::FileTree& sys,
                                      std::vector<std::string>* left_out) {
  const std::map<std::string, std::string> gpu_local = GpuLocalNics(sys, devices);
  std::vector<ComputeRail> candidates;
  auto leave = [&](const PortNetdevs& p, const std::string& why) {
    if (left_out) left_out->push_back(absl::StrCat(p.device, ":", p.port, " (", why, ")"));
  };
  for (const PortNetdevs& p : NetdevsOfPorts(devices, &sys)) {
    const platform::RawRdmaDevice* dev = nullptr;
    for (const platform::RawRdmaDevice& d : devices) {
      if (d.name == p.device) dev = &d;
    }
    if (!p.active) {
      leave(p, "not ACTIVE");
      continue;
    }
    if (sys.Exists(absl::StrCat("class/infiniband/", p.device, "/device/physfn"))) {
      leave(p, "a virtual function");
      continue;
    }
    ComputeRail r;
    r.port = p;
    r.netdev = dev ? AddressNetdev(*dev, p.port, p) : (p.netdevs.empty() ? "" : p.netdevs.front());
    r.gpu_local = dev != nullptr && gpu_local.count(dev->pci_address) > 0;
    if (r.gpu_local) r.gpu_bus_id = gpu_local.at(dev->pci_address);
    candidates.push_back(std::move(r));
  }
  if (gpu_local.empty()) return candidates;  // no GPU: every ACTIVE port
  std::vector<ComputeRail> out;
  for (ComputeRail& r : candidates) {
    if (r.gpu_local) {
      out.push_back(std::move(r));
    } else {
      leave(r.port, "not the nearest RDMA NIC of any GPU");
    }
  }
  return out;
}

}  // namespace nodeprobe::rdma
