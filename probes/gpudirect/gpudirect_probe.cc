#include "probes/gpudirect/gpudirect_probe.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/gpu_memory.h"
#include "platform/rdma_sysfs.h"
#include "platform/verbs_port.h"
#include "platform/verbs_qp.h"
#include "probes/common/host_facts.h"
#include "probes/framework/result_util.h"
#include "probes/gpudirect/acs.h"
#include "probes/gpudirect/gpudirect_findings.h"
#include "probes/pcie/pcie_probe.h"

namespace nodeprobe {
namespace {

// One registration method and why it is or is not available. `known` is
// false when the tree the fact comes from was not captured: absent is not
// "no", and nothing is judged on it.
struct Method {
  bool available = false;
  std::string why;
  bool known = true;
};

Method PeerMemory(const platform::FileTree& sys, v1::ProbeResult* result) {
  // Every live sysfs has module/ (built-in modules are there too); a
  // capture without it says nothing about the modules.
  if (!sys.Exists("module")) {
    return {false, absl::StrCat("not captured: ", sys.Path("module"),
                                " is not in the capture, so whether nvidia_peermem is loaded "
                                "is not known"),
            false};
  }
  if (sys.Exists("module/nvidia_peermem")) {
    return {true, "nvidia_peermem module loaded"};
  }
  absl::StatusOr<std::string> nv_mem =
      sys.ReadValue("kernel/mm/memory_peers/nv_mem/version");
  if (nv_mem.ok()) {
    AddEvidence(result, sys.Path("kernel/mm/memory_peers/nv_mem/version"), *nv_mem);
    return {true, absl::StrCat("legacy nv_peer_mem ", *nv_mem)};
  }
  return {false, "nvidia_peermem is not loaded"};
}

Method DmaBuf(const platform::FileTree& proc, bool live, v1::ProbeResult* result) {
  if (!proc.Exists("sys/kernel")) {
    return {false, absl::StrCat("not captured: ", proc.Path("sys/kernel"),
                                " is not in the capture, so the kernel and NVIDIA module "
                                "behind dma-buf are not known"),
            false};
  }
  std::vector<std::string> missing;
  absl::StatusOr<std::string> release = proc.ReadValue("sys/kernel/osrelease");
  auto kernel = release.ok() ? hostfacts::ParseKernelRelease(*release) : std::nullopt;
  if (release.ok()) AddEvidence(result, proc.Path("sys/kernel/osrelease"), *release);
  if (!kernel || *kernel < std::make_pair(5, 12)) {
    missing.push_back(absl::StrCat("kernel ", release.ok() ? *release : "unknown",
                                   " (5.12 or later needed)"));
  }
  absl::StatusOr<std::string> driver = proc.ReadValue("driver/nvidia/version");
  if (!driver.ok() || !hostfacts::ParseNvidiaDriverVersion(*driver).open_module) {
    missing.push_back(driver.ok() ? "the proprietary NVIDIA kernel module (dma-buf "
                                    "export needs the open module)"
                                  : "no NVIDIA driver loaded");
  }
  // The library is this process's; on a captured tree it says nothing about
  // the captured host, so it is only consulted live.
  if (live && !platform::VerbsHasDmabufMr()) {
    missing.push_back("rdma-core without ibv_reg_dmabuf_mr (34 or later needed)");
  }
  if (missing.empty()) return {true, "kernel, open NVIDIA module and rdma-core support dma-buf"};
  return {false, absl::StrCat("dma-buf unavailable: ", absl::StrJoin(missing, "; "))};
}

// IOMMU translation (not passthrough) on a GPU's group makes every DMA pay
// an IOTLB lookup; GPU nodes normally run iommu=pt.
void JudgeIommu(const platform::FileTree& sys, const platform::FileTree& proc,
                const std::map<std::string, platform::RawPciDevice>& devices,
                const std::vector<std::string>& gpus, v1::ProbeResult* result) {
  absl::StatusOr<std::string> cmdline = proc.ReadValue("cmdline");
  if (cmdline.ok()) {
    AddEvidence(result, "kernel IOMMU/ACS flags",
                absl::StrJoin(hostfacts::RelevantCmdlineFlags(*cmdline), " "));
  }
  absl::StatusOr<std::vector<std::string>> iommus = sys.ListDir("class/iommu");
  if (!iommus.ok() || iommus->empty()) {
    AddEvidence(result, sys.Path("class/iommu"), "no IOMMU active");
    return;
  }
  for (const std::string& gpu : gpus) {
    const std::string rel = devices.at(gpu).sys_path + "/iommu_group/type";
    absl::StatusOr<std::string> type = sys.ReadValue(rel);
    if (!type.ok()) continue;
    AddEvidence(result, sys.Path(rel), *type);
    if (absl::StartsWith(*type, "DMA")) {
      AddFinding(result, findings::kIommuTranslationEnabled.code, gpu,
                 absl::StrCat("GPU ", gpu, "'s IOMMU group translates DMA (", *type,
                              "): GPUDirect traffic pays IOTLB lookups "
                              "and peer-to-peer may be blocked"));
    }
  }
}

}  // namespace

std::vector<GpuNicPath> GpuNicPaths(
    const std::map<std::string, platform::RawPciDevice>& devices,
    const std::vector<std::string>& gpus, const std::vector<std::string>& nics) {
  std::vector<GpuNicPath> out;
  for (const std::string& gpu : gpus) {
    const auto& gu = devices.at(gpu).upstream;
    size_t best_common = 0;
    std::string best_nic;
    for (const std::string& nic : nics) {
      auto it = devices.find(nic);
      if (it == devices.end()) continue;
      const auto& nu = it->second.upstream;
      size_t common = 0;
      while (common < gu.size() && common < nu.size() && gu[common] == nu[common]) {
        ++common;
      }
      if (best_nic.empty() || common > best_common) {
        best_common = common;
        best_nic = nic;
      }
    }
    if (best_nic.empty()) continue;
    const auto& nu = devices.at(best_nic).upstream;
    // Only the bridges below the deepest common one can redirect the pair's
    // peer traffic (Linux's p2pdma.c counts ACS redirects below the common
    // upstream bridge). With none in common the traffic crosses the root
    // complex (NCCL's PHB/SYS) whatever ACS says.
    std::set<std::string> bridges;
    if (best_common > 0) {
      for (size_t k = best_common; k < gu.size(); ++k) bridges.insert(gu[k]);
      for (size_t k = best_common; k < nu.size(); ++k) bridges.insert(nu[k]);
    }
    out.push_back({gpu, best_nic, {bridges.begin(), bridges.end()}, best_common == 0});
  }
  return out;
}

namespace {

// The active half: GPU memory registered with the GPU's nearest HCA, the
// way the transfer engine registers it (dma-buf first, then peermem on the
// device pointer), so "GDR possible" is shown, not inferred. Live host only.
void RegisterGpuMemory(const std::vector<GpuNicPath>& paths,
                       const std::vector<platform::RawRdmaDevice>& rdma,
                       v1::ProbeResult* result) {
  int tried = 0, worked = 0;
  std::vector<std::string> why;
  for (const GpuNicPath& path : paths) {
    std::string hca;
    for (const platform::RawRdmaDevice& d : rdma) {
      if (d.pci_address == path.nic) hca = d.name;
    }
    if (hca.empty()) continue;
    const std::string key = absl::StrCat("register ", path.gpu, " -> ", hca);
    absl::StatusOr<int> ordinal = platform::GpuMemory::OrdinalOfPciBus(path.gpu);
    if (!ordinal.ok()) {
      AddEvidence(result, key, absl::StrCat("not tried: ", ordinal.status().message()));
      continue;
    }
    platform::QpOptions options;
    options.gpu = *ordinal;
    ++tried;
    absl::StatusOr<std::unique_ptr<platform::VerbsQp>> qp =
        platform::VerbsQp::Open(hca, 1, 1 << 20, options);
    if (qp.ok()) {
      ++worked;
      AddEvidence(result, key, (*qp)->memory());
    } else {
      AddEvidence(result, key, std::string(qp.status().message()));
      why.push_back(absl::StrCat(path.gpu, " -> ", hca, ": ", qp.status().message()));
    }
  }
  if (tried > 0 && worked == 0) {
    AddFinding(result, findings::kGdrNotAvailable.code, "",
               absl::StrCat("GPU memory could not be registered with any local HCA (",
                            absl::StrJoin(why, "; "), ")"));
  }
}

// ACS on every bridge between each GPU and its nearest NIC: redirecting
// peer-to-peer traffic to the root complex, or unreadable.
void JudgeAcs(const platform::FileTree& sys, const ProbeContext& ctx,
              const std::map<std::string, platform::RawPciDevice>& devices,
              const std::vector<std::string>& gpus, const std::vector<std::string>& nics,
              v1::ProbeResult* result) {
  std::set<std::string> checked;
  for (const GpuNicPath& path : GpuNicPaths(devices, gpus, nics)) {
    AddEvidence(result, absl::StrCat("path ", path.gpu, " -> ", path.nic),
                path.through_root_complex
                    ? "through the root complex (PHB/SYS): no PCIe bridge in common, so "
                      "peer traffic goes through the CPU whatever ACS says; not judged"
                    : absl::StrJoin(path.bridges, " "));
    for (const std::string& bridge : path.bridges) {
      if (!checked.insert(bridge).second) continue;
      absl::StatusOr<std::string> config = platform::ReadPciConfig(sys, devices.at(bridge));
      absl::StatusOr<gpudirect::AcsState> acs =
          config.ok() ? gpudirect::ParseAcs(*config)
                      : absl::StatusOr<gpudirect::AcsState>(config.status());
      if (!acs.ok()) {
        // On a capture the cause is the capture (a missing or short config
        // file), whoever reads it; live, a short read means no privilege.
        const bool captured = ctx.host.IsCaptured();
        AddFinding(result, findings::kAcsStateUnknown.code, bridge,
                   absl::StrCat(
                       "cannot read ACS of bridge ", bridge, ": ", acs.status().message(),
                       captured ? " (in the capture being read: it needs the bridges' config files "
                                  "whole, captured as root)"
                                : ""));
        continue;
      }
      AddEvidence(result, absl::StrCat("ACS ", bridge),
                  acs->present ? gpudirect::DescribeAcsControl(acs->control) : "no ACS capability");
      if (acs->present && gpudirect::AcsBlocksPeerToPeer(acs->control)) {
        AddFinding(result, findings::kAcsEnabledOnGpuNicPath.code, bridge,
                   absl::StrCat("bridge ", bridge, " between GPU ", path.gpu, " and NIC ", path.nic,
                                " has ACS ", gpudirect::DescribeAcsControl(acs->control),
                                ": peer-to-peer traffic is redirected to the "
                                "root complex"));
      }
    }
  }
}

}  // namespace

absl::StatusOr<v1::ProbeResult> GpuDirectProbe::Run(const ProbeContext& ctx) {
  platform::FileTree sys(ctx.host.sys_root);
  platform::FileTree proc(ctx.host.proc_root);
  v1::ProbeResult result;

  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> devices =
      platform::ReadPciDevices(sys);
  if (!devices.ok()) return devices.status();
  std::vector<std::string> gpus;
  for (const auto& [addr, dev] : *devices) {
    if (PcieRoleOf(dev) == "gpu") gpus.push_back(addr);
  }
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> rdma = platform::ReadRdmaDevices(sys);
  if (!rdma.ok()) return rdma.status();
  std::vector<std::string> nics;
  for (const auto& dev : *rdma) {
    if (!dev.pci_address.empty()) nics.push_back(dev.pci_address);
  }
  if (gpus.empty() || nics.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason(absl::StrCat("GPUDirect RDMA needs an NVIDIA GPU and an RDMA NIC; found ",
                                   gpus.size(), " GPUs and ", nics.size(), " RDMA NICs"));
    return result;
  }

  JudgeAcs(sys, ctx, *devices, gpus, nics, &result);
  JudgeIommu(sys, proc, *devices, gpus, &result);

  Method peermem = PeerMemory(sys, &result);
  Method dmabuf = DmaBuf(proc, ctx.host.IsLiveSysfs(), &result);
  AddEvidence(&result, "method peermem", peermem.why);
  AddEvidence(&result, "method dma-buf", dmabuf.why);
  AddMeasurement(&result, "gdr_method_peermem", peermem.available, "bool");
  AddMeasurement(&result, "gdr_method_dmabuf", dmabuf.available, "bool");
  const bool passive_none = !peermem.available && !dmabuf.available;
  if (!passive_none && ctx.host.IsLiveSysfs() && !ctx.host.IsCaptured()) {
    RegisterGpuMemory(GpuNicPaths(*devices, gpus, nics), *rdma, &result);
  }
  if (passive_none && (!peermem.known || !dmabuf.known)) {
    AddFinding(&result, findings::kGdrStateNotCaptured.code, "",
               absl::StrCat("whether GPUDirect RDMA is possible is not known: ",
                            !peermem.known ? peermem.why : dmabuf.why));
  } else if (passive_none) {
    AddFinding(&result, findings::kGdrNotAvailable.code, "",
               absl::StrCat("no GPUDirect RDMA method: ", peermem.why, "; ", dmabuf.why));
  }
  return result;
}

}  // namespace nodeprobe
