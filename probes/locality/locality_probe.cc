#include "probes/locality/locality_probe.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "platform/pci_class.h"
#include "probes/framework/result_util.h"
#include "probes/locality/locality_findings.h"
#include "probes/locality/locality_profile.h"
#include "probes/locality/path_class.h"
#include "probes/nccl/nccl_profile.h"

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
  // An NCCL topology file declares its GPUs by class alone (NCCL's rule).
  // class_id is the class register without its programming interface.
  return dev.declared_gpu || platform::IsNvidiaGpu(dev.vendor_id, uint32_t{dev.class_id} << 8);
}

bool IsNic(const platform::TopoPciDevice& dev) {
  return dev.declared_nic ||
         platform::ClassifyPci(dev.vendor_id, uint32_t{dev.class_id} << 8) == platform::PciKind::kNic;
}

namespace {

// A NIC that can be a rail: it has an RDMA device, or an NCCL topology
// file lists it (NCCL uses every NIC of its file as a network device).
bool IsRailNic(const platform::TopoPciDevice& nic) {
  return !nic.rdma_devices.empty() || nic.declared_nic;
}

// How a rail NIC is named across topologies: its RDMA devices, or its PCI
// address when the source names none (an NCCL file written by class).
std::vector<std::string> RailNicIds(const platform::TopoPciDevice& nic) {
  if (!nic.rdma_devices.empty()) return nic.rdma_devices;
  return {nic.address};
}

}  // namespace

// "mlx5_10" after "mlx5_2": the name's text, then its trailing number.
bool NaturalLess(const std::string& a, const std::string& b) {
  auto split = [](const std::string& s) {
    size_t i = s.size();
    while (i > 0 && isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
    uint64_t n = 0;
    for (size_t k = i; k < s.size() && k < i + 18; ++k) n = n * 10 + (s[k] - '0');
    return std::make_pair(s.substr(0, i), n);
  };
  return split(a) < split(b);
}

void OrderLikeNvidiaSmi(std::vector<const platform::TopoPciDevice*>* gpus,
                        std::vector<const platform::TopoPciDevice*>* nics) {
  // GPUs in PCI bus id order: NVML's and nvidia-smi's index.
  std::sort(gpus->begin(), gpus->end(),
            [](const auto* a, const auto* b) { return a->address < b->address; });
  // NICs as `nvidia-smi topo -m` names them: RDMA devices by name
  // (NIC0 = mlx5_0, ...), then the NICs without one by PCI address.
  std::stable_sort(nics->begin(), nics->end(), [](const auto* a, const auto* b) {
    if (a->rdma_devices.empty() != b->rdma_devices.empty()) return b->rdma_devices.empty();
    if (!a->rdma_devices.empty()) return NaturalLess(a->rdma_devices[0], b->rdma_devices[0]);
    return a->address < b->address;
  });
}

// hwloc names NVML devices nvmlN; NVML numbers by PCI bus id too, so a
// different N means the labels cannot be trusted for this topology.
void CheckNvmlIndices(const std::vector<const platform::TopoPciDevice*>& gpus,
                      v1::ProbeResult* result) {
  for (size_t i = 0; i < gpus.size(); ++i) {
    for (const std::string& osdev : gpus[i]->gpu_devices) {
      if (osdev.rfind("nvml", 0) != 0) continue;
      if (osdev != absl::StrCat("nvml", i)) {
        AddFinding(result, findings::kGpuIndexMismatch.code, gpus[i]->address,
                   absl::StrCat("GPU", i, " (", gpus[i]->address, ", PCI order) is ", osdev,
                                " in the topology: the indices disagree"));
      }
    }
  }
}

namespace {

// A GPU's nearest RDMA NICs: the best path class to any NIC with an RDMA
// device, and the indices (into `nics`) of every NIC at that class.
struct Nearest {
  std::optional<PathClass> path;
  std::vector<size_t> nics;
};

Nearest NearestRdma(const platform::TopoPciDevice& gpu,
                    const std::vector<const platform::TopoPciDevice*>& nics) {
  Nearest out;
  for (size_t j = 0; j < nics.size(); ++j) {
    if (!IsRailNic(*nics[j])) continue;  // rails are RDMA NICs
    const PathClass c = locality::ClassifyPath(gpu, *nics[j]);
    if (!out.path || c < *out.path) {
      out.path = c;
      out.nics.clear();
    }
    if (c == *out.path) out.nics.push_back(j);
  }
  return out;
}

// GPU i's rail: its nearest RDMA NICs recorded in the topology, judged
// (not local: no GPUDirect RDMA by default; on another NUMA node), and
// the GPUs each NIC serves at PIX noted in `gpus_per_nic`.
void JudgeGpuRail(size_t i, const std::vector<const platform::TopoPciDevice*>& gpus,
                  const std::vector<const platform::TopoPciDevice*>& nics, v1::Verdict not_local,
                  std::map<std::string, std::vector<std::string>>* gpus_per_nic,
                  v1::ProbeResult* result) {
  v1::Topology* topo = result->mutable_topology();
  const std::string gpu = absl::StrCat("GPU", i);
  v1::TopologyRow* row = topo->add_matrix();
  for (const auto* nic : nics) {
    row->add_paths(std::string(locality::PathClassName(locality::ClassifyPath(*gpus[i], *nic))));
  }
  const Nearest nearest = NearestRdma(*gpus[i], nics);
  if (!nearest.path) return;
  const PathClass best_path = *nearest.path;
  v1::GpuRail* rail = topo->add_rails();
  rail->set_gpu(gpu);
  rail->set_path(std::string(locality::PathClassName(best_path)));
  rail->set_gdr_by_default(locality::GdrByDefault(best_path));
  std::vector<std::string> names;
  for (size_t j : nearest.nics) {
    rail->add_nics(absl::StrCat("NIC", j));
    names.push_back(NicName(*nics[j], absl::StrCat("NIC", j)));
    if (best_path == PathClass::kPix) (*gpus_per_nic)[absl::StrCat("NIC", j)].push_back(gpu);
  }
  const std::string& dev = gpus[i]->address;
  if (!locality::GdrByDefault(best_path)) {
    AddFinding(
        result, findings::kGpuNicNotLocal.code, not_local, dev,
        absl::StrCat(gpu, " (", gpus[i]->address, ")'s nearest RDMA NIC ",
                     absl::StrJoin(names, ", "), " is at ", locality::PathClassName(best_path),
                     ": NCCL will not use GPUDirect RDMA by default and traffic crosses "
                     "the ",
                     best_path == PathClass::kSys ? "socket interconnect" : "host bridge"));
  }
  for (size_t j : nearest.nics) {
    if (gpus[i]->numa_node >= 0 && nics[j]->numa_node >= 0 &&
        gpus[i]->numa_node != nics[j]->numa_node) {
      AddFinding(result, findings::kGpuNicNumaMismatch.code, dev,
                 absl::StrCat(gpu, " is on NUMA node ", gpus[i]->numa_node, " but its nearest NIC ",
                              NicName(*nics[j], absl::StrCat("NIC", j)), " is on NUMA node ",
                              nics[j]->numa_node));
      break;
    }
  }
}

}  // namespace

v1::ProbeResult JudgeLocality(const platform::PciTopology& topology,
                              const Profile& profile) {
  v1::ProbeResult result;
  std::vector<const platform::TopoPciDevice*> gpus, nics;
  for (const auto& dev : topology.devices) {
    if (IsNvidiaGpu(dev)) gpus.push_back(&dev);
    if (IsNic(dev)) nics.push_back(&dev);
  }
  OrderLikeNvidiaSmi(&gpus, &nics);
  CheckNvmlIndices(gpus, &result);
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
    result.set_reason(absl::StrCat("no NVIDIA GPUs in the topology (", topology.source, ")"));
    return result;
  }
  bool any_rdma = false;
  for (const auto* nic : nics) any_rdma |= IsRailNic(*nic);
  const v1::Verdict not_local =
      profile.Section<LocalityRules>().rail_optimized ? v1::FAIL : v1::WARN;
  std::map<std::string, std::vector<std::string>> gpus_per_nic;  // PIX only
  for (size_t i = 0; i < gpus.size(); ++i) {
    JudgeGpuRail(i, gpus, nics, not_local, &gpus_per_nic, &result);
  }
  for (const auto& [nic, served] : gpus_per_nic) {
    if (served.size() < 2) continue;
    AddFinding(&result, findings::kNicSharedByGpus.code, nic,
               absl::StrCat(nic, " is the nearest NIC of ", served.size(), " GPUs (",
                            absl::StrJoin(served, ", "), "): they share its bandwidth"));
  }
  for (const std::string& note : topology.notes) {
    AddFinding(&result, findings::kPcieVmLinkArtifact.code, "", note);
  }
  if (!any_rdma) {
    AddFinding(&result, findings::kNoRdmaNicForGpu.code, not_local, "",
               absl::StrCat(gpus.size(), " GPUs and no RDMA NIC in the topology (", nics.size(),
                            " other NICs): multi-node traffic will go through TCP sockets"));
  }
  return result;
}

std::map<std::string, RdmaRail> RdmaRails(const platform::PciTopology& topology) {
  std::vector<const platform::TopoPciDevice*> nics;
  for (const auto& dev : topology.devices) {
    if (IsNic(dev)) nics.push_back(&dev);
  }
  std::map<std::string, RdmaRail> out;
  for (const auto& gpu : topology.devices) {
    if (!IsNvidiaGpu(gpu)) continue;
    RdmaRail& rail = out[gpu.address];
    const Nearest nearest = NearestRdma(gpu, nics);
    rail.gdr_by_default = nearest.path && locality::GdrByDefault(*nearest.path);
    rail.path = nearest.path;
    for (size_t j : nearest.nics) {
      for (const std::string& id : RailNicIds(*nics[j])) rail.nics.insert(id);
    }
  }
  return out;
}

std::map<std::string, std::set<std::string>> NearestRdmaNics(const platform::PciTopology& topology) {
  std::map<std::string, std::set<std::string>> out;
  for (auto& [gpu, rail] : RdmaRails(topology)) out[gpu] = std::move(rail.nics);
  return out;
}

void CompareNcclTopoFile(const platform::PciTopology& live, const platform::PciTopology& file,
                         const std::string& path, v1::ProbeResult* result) {
  const auto want = NearestRdmaNics(live);
  auto told = NearestRdmaNics(file);
  // A file that names its NICs by bus id only: the live names at that id.
  std::map<std::string, std::vector<std::string>> live_names;
  for (const auto& dev : live.devices) {
    if (!dev.rdma_devices.empty()) live_names[dev.address] = dev.rdma_devices;
  }
  for (auto& [gpu, nics] : told) {
    std::set<std::string> named;
    for (const std::string& id : nics) {
      auto it = live_names.find(id);
      if (it == live_names.end()) {
        named.insert(id);
      } else {
        named.insert(it->second.begin(), it->second.end());
      }
    }
    nics = std::move(named);
  }
  auto names = [](const std::set<std::string>& s) {
    return s.empty() ? std::string("none") : absl::StrJoin(s, ", ");
  };
  for (const auto& [gpu, nics] : want) {
    auto it = told.find(gpu);
    if (it == told.end()) {
      AddFinding(
          result, findings::kNcclTopoFileMismatch.code, v1::FAIL, gpu,
          absl::StrCat("GPU ", gpu, " is not in NCCL_TOPO_FILE ", path, ": NCCL will not know it"));
    } else if (it->second != nics) {
      AddFinding(
          result, findings::kNcclTopoFileMismatch.code, v1::FAIL, gpu,
          absl::StrCat("GPU ", gpu, "'s nearest RDMA NIC is ", names(nics),
                       " on this node, but NCCL_TOPO_FILE ", path, " says ", names(it->second),
                       ": NCCL trusts the file and will use the "
                       "wrong NIC"));
    }
  }
  for (const auto& [gpu, nics] : told) {
    if (want.count(gpu) == 0) {
      AddFinding(result, findings::kNcclTopoFileMismatch.code, v1::FAIL, gpu,
                 absl::StrCat("NCCL_TOPO_FILE ", path, " names GPU ", gpu,
                              ", which this node does not have"));
    }
  }
}

absl::StatusOr<platform::TopologySource> TopologySourceOf(const platform::HostPaths& host) {
  platform::TopologySource source;
  source.xml_path = host.topology_xml;
  if (source.xml_path.empty() && !host.IsLiveSysfs()) {
    // A captured node is judged from its own tree, never from the machine
    // that happens to read it: hwloc reads the capture's root (the
    // directory holding its sys/ and proc/).
    const std::filesystem::path sys(host.sys_root);
    const std::filesystem::path root = sys.filename() == "sys" ? sys.parent_path() : "";
    if (root.empty() || !std::filesystem::is_directory(root / "sys")) {
      return absl::NotFoundError(absl::StrCat(
          "topology not captured: --sysfs-root ", host.sys_root,
          " is not a directory named sys/ inside a capture, and no --topology-xml was given"));
    }
    source.fsroot = root.string();
  }
  return source;
}

absl::StatusOr<v1::ProbeResult> LocalityProbe::Run(const ProbeContext& ctx) {
  absl::StatusOr<platform::TopologySource> source = TopologySourceOf(ctx.host);
  if (!source.ok()) {
    v1::ProbeResult skipped;
    skipped.set_verdict(v1::SKIP);
    skipped.set_reason(std::string(source.status().message()));
    return skipped;
  }
  absl::StatusOr<platform::PciTopology> topo = platform::LoadPciTopology(*source);
  if (!topo.ok()) return topo.status();
  v1::ProbeResult result = JudgeLocality(*topo, *ctx.profile);
  // NCCL trusts NCCL_TOPO_FILE over the hardware: a file made for another
  // machine (or an older layout) silently sends traffic to the wrong NIC.
  std::string topo_file = ctx.profile->Section<NcclRules>().topo_file;
  if (topo_file.empty() && ctx.host.IsLiveSysfs() && ctx.host.topology_xml.empty()) {
    if (const char* env = getenv("NCCL_TOPO_FILE")) topo_file = env;
  }
  if (!topo_file.empty()) CheckNcclTopoFile(*topo, topo_file, &result);
  return result;
}

void CheckNcclTopoFile(const platform::PciTopology& live, const std::string& path,
                       v1::ProbeResult* result) {
  AddEvidence(result, "NCCL_TOPO_FILE", path);
  absl::StatusOr<platform::PciTopology> file = platform::LoadPciTopology(path);
  if (!file.ok()) {
    AddFinding(result, findings::kNcclTopoFileMismatch.code, v1::ERROR, "",
               absl::StrCat("NCCL_TOPO_FILE cannot be read: ", file.status().message()));
    return;
  }
  CompareNcclTopoFile(live, *file, path, result);
}

}  // namespace nodeprobe
