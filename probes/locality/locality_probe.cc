// File: locality_probe.cc
#include "probes/locality/locality_probe.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/locality/path_class.h"

namespace nodeprobe {
namespace {

using locality::PathClass;

v1::TopologyDevice Describe(const platform::TopoPciDevice& dev,
                            const std::string& label) {
  v1::TopologyDevice out;
  out.set_label(label);
  out.set_pci_address(dev.address);
  out.set_model(dev.name.empty()
                    ? absl::StrFormat("%04x:%04x", dev.vendor_id, dev.device_id)
                    : dev.name);
  out.set_numa_node(dev.numa_node);
  out.set_cpuset(dev.cpuset);
  for (const auto& n : dev.rdma_devices) out.add_rdma_devices(n);
  for (const auto& n : dev.netdevs) out.add_netdevs(n);
  for (const auto& n : dev.gpu_devices) out.add_gpu_devices(n);
  return out;
}

std::string NicName(const platform::TopoPciDevice& nic, const std::string& label) {
  if (!nic.rdma_devices.empty()) return absl::StrCat(label, " (", nic.rdma_devices[0], ")");
  if (!nic.netdevs.empty()) return absl::StrCat(label, " (", nic.netdevs[0], ")");
  return absl::StrCat(label, " (", nic.address, ")");
}

}  // namespace

bool IsNvidiaGpu(const platform::TopoPciDevice& dev) {
  return dev.vendor_id == 0x10de &&
         (dev.class_id == 0x0300 || dev.class_id == 0x0302);
}

bool IsNic(const platform::TopoPciDevice& dev) {
  return (dev.class_id >> 8) == 0x02 || dev.class_id == 0x0c06;
}

v1::ProbeResult JudgeLocality(const platform::PciTopology& topology,
                              const Profile& profile) {
  v1::ProbeResult result;
  std::vector<const platform::TopoPciDevice*> gpus, nics;
  for (const auto& dev : topology.devices) {
    if (IsNvidiaGpu(dev)) gpus.push_back(&dev);
    if (IsNic(dev)) nics.push_back(&dev);
  }
  v1::Topology* topo = result.mutable_topology();
  topo->set_source(topology.source);
  for (size_t i = 0; i < gpus.size(); ++i) {
    *topo->add_gpus() = Describe(*gpus[i], absl::StrCat("GPU", i));
  }
  for (size_t j = 0; j < nics.size(); ++j) {
    *topo->add_nics() = Describe(*nics[j], absl::StrCat("NIC", j));
  }
  if (gpus.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason(absl::StrCat("no NVIDIA GPUs in the topology (",
                                   topology.source, ")"));
    return result;
  }

  bool any_rdma = false;
  for (const auto* nic : nics) any_rdma |= !nic->rdma_devices.empty();
  const v1::Verdict not_local = profile.rail_optimized ? v1::FAIL : v1::WARN;
  std::map<std::string, std::vector<std::string>> gpus_per_nic;  // PIX only

  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string gpu = absl::StrCat("GPU", i);
    v1::TopologyRow* row = topo->add_matrix();
    std::optional<PathClass> best;
    std::vector<size_t> best_nics;
    for (size_t j = 0; j < nics.size(); ++j) {
      PathClass c = locality::ClassifyPath(*gpus[i], *nics[j]);
      row->add_paths(std::string(locality::PathClassName(c)));
      if (nics[j]->rdma_devices.empty()) continue;  // rails are RDMA NICs
      if (!best || c < *best) {
        best = c;
        best_nics.clear();
      }
      if (c == *best) best_nics.push_back(j);
    }
    if (!best) continue;
    v1::GpuRail* rail = topo->add_rails();
    rail->set_gpu(gpu);
    rail->set_path(std::string(locality::PathClassName(*best)));
    rail->set_gdr_by_default(locality::GdrByDefault(*best));
    std::vector<std::string> names;
    for (size_t j : best_nics) {
      rail->add_nics(absl::StrCat("NIC", j));
      names.push_back(NicName(*nics[j], absl::StrCat("NIC", j)));
      if (*best == PathClass::kPix) {
        gpus_per_nic[absl::StrCat("NIC", j)].push_back(gpu);
      }
    }
    const std::string& dev = gpus[i]->address;
    if (!locality::GdrByDefault(*best)) {
      AddFinding(&result, "GPU_NIC_NOT_LOCAL", not_local, dev,
                 absl::StrCat(gpu, " (", gpus[i]->address, ")'s nearest RDMA NIC ",
                              absl::StrJoin(names, ", "), " is at ",
                              locality::PathClassName(*best),
                              ": NCCL will not use GPUDirect RDMA by default and "
                              "traffic crosses the ",
                              *best == PathClass::kSys ? "socket interconnect"
                                                       : "host bridge"),
                 "put the GPU and a NIC under the same PCIe switch (see the "
                 "server's slot map), or accept it in the profile if this "
                 "node is not rail-optimized");
    }
    for (size_t j : best_nics) {
      if (gpus[i]->numa_node >= 0 && nics[j]->numa_node >= 0 &&
          gpus[i]->numa_node != nics[j]->numa_node) {
        AddFinding(&result, "GPU_NIC_NUMA_MISMATCH", v1::WARN, dev,
                   absl::StrCat(gpu, " is on NUMA node ", gpus[i]->numa_node,
                                " but its nearest NIC ",
                                NicName(*nics[j], absl::StrCat("NIC", j)),
                                " is on NUMA node ", nics[j]->numa_node),
                   "bind the rank to the NIC's NUMA node, or move the NIC");
        break;
      }
    }
  }
  for (const auto& [nic, served] : gpus_per_nic) {
    if (served.size() < 2) continue;
    AddFinding(&result, "NIC_SHARED_BY_GPUS", v1::PASS, nic,
               absl::StrCat(nic, " is the nearest NIC of ", served.size(),
                            " GPUs (", absl::StrJoin(served, ", "),
                            "): they share its bandwidth"),
               "expected on nodes with fewer NICs than GPUs; size collective "
               "bandwidth expectations per NIC, not per GPU");
  }
  if (!any_rdma) {
    AddFinding(&result, "NO_RDMA_NIC_FOR_GPU", not_local, "",
               absl::StrCat(gpus.size(), " GPUs and no RDMA NIC in the topology (",
                            nics.size(), " other NICs): multi-node traffic "
                            "will go through TCP sockets"),
               "install RDMA NICs (InfiniBand/RoCE) and their driver, or "
               "check that the RDMA driver is loaded (rdma link)");
  }
  return result;
}

absl::StatusOr<v1::ProbeResult> LocalityProbe::Run(const ProbeContext& ctx) {
  absl::StatusOr<platform::PciTopology> topo =
      platform::LoadPciTopology(ctx.host.topology_xml);
  if (!topo.ok()) return topo.status();
  return JudgeLocality(*topo, *ctx.profile);
}

}  // namespace nodeprobe
