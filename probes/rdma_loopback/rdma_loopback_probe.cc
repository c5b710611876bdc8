#include "probes/rdma_loopback/rdma_loopback_probe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/gpu_memory.h"
#include "platform/pci_sysfs.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/result_util.h"
#include "probes/gpudirect/gpudirect_probe.h"
#include "probes/pcie/pcie_probe.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/rdma_loopback/rdma_loopback_findings.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/rdma_loopback.h"
#include "probes/transfer/rdma_transport.h"

namespace nodeprobe {
namespace {

// GPU PCI address -> the PCI address of its nearest NIC, for every GPU.
std::map<std::string, std::string> NearestNicOfGpus(
    const platform::FileTree& sys, const std::vector<platform::RawRdmaDevice>& rdma) {
  std::map<std::string, std::string> out;
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> pci =
      platform::ReadPciDevices(sys);
  if (!pci.ok()) return out;
  std::vector<std::string> gpus, nics;
  for (const auto& [addr, dev] : *pci) {
    if (PcieRoleOf(dev) == "gpu") gpus.push_back(addr);
  }
  for (const platform::RawRdmaDevice& dev : rdma) {
    if (!dev.pci_address.empty()) nics.push_back(dev.pci_address);
  }
  if (gpus.empty() || nics.empty()) return out;
  for (const GpuNicPath& path : GpuNicPaths(*pci, gpus, nics)) out[path.gpu] = path.nic;
  return out;
}

void AddRow(const v1::TransferReport& report, const std::string& label, bool gpu,
            v1::ProbeResult* result) {
  for (const v1::TransferResult& row : report.results()) {
    std::map<std::string, std::string> labels = {{"device", label},
                                                 {"memory", gpu ? "gpu" : "host"}};
    if (report.op() == v1::WRITE_LAT) {
      AddMeasurement(result, "loopback_write_lat_median", row.latency().median_us(), "us",
                     labels);
    } else {
      AddMeasurement(result, "loopback_write_bw", row.bw_avg_gbps(), "Gb/s", labels);
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<LoopbackTarget>> LoopbackTargets(
    const platform::FileTree& sys, std::vector<std::string>* not_active) {
  std::vector<LoopbackTarget> out;
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  if (!devs.ok()) return devs.status();
  const std::map<std::string, std::string> nearest = NearestNicOfGpus(sys, *devs);
  for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(*devs, &sys)) {
    if (!p.active) {
      if (not_active) not_active->push_back(absl::StrCat(p.device, ":", p.port));
      continue;
    }
    LoopbackTarget t;
    t.device = p.device;
    t.port = p.port;
    t.link_layer = p.link_layer;
    if (!p.netdevs.empty()) t.egress.netdev = p.netdevs.front();
    t.egress.netdev_ipv4 = p.ipv4;
    for (const platform::RawRdmaDevice& dev : *devs) {
      for (const platform::RawRdmaPort& port : dev.ports) {
        if (dev.name == p.device && port.port == p.port) t.gids = transfer::GidTableOf(port);
      }
    }
    for (const platform::RawRdmaDevice& dev : *devs) {
      if (dev.name != p.device || dev.pci_address.empty()) continue;
      for (const auto& [gpu, nic] : nearest) {
        if (nic == dev.pci_address) {
          t.gpu_pci = gpu;
          break;
        }
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

void JudgeLoopback(const transfer::LoopbackOutcome& outcome, const transfer::LinkFacts& facts,
                   const Profile& profile, bool gpu, v1::ProbeResult* result) {
  const std::string label = outcome.write_bw.device();
  for (const v1::TransferReport* report : {&outcome.write_bw, &outcome.write_lat}) {
    if (report->results_size() == 0) continue;
    AddRow(*report, label, gpu, result);
    v1::ProbeResult judged;
    *judged.mutable_transfer() = *report;
    transfer::JudgeAgainstExpectation(profile, facts, &judged);
    for (const v1::Finding& f : judged.findings()) *result->add_findings() = f;
    AddEvidence(result,
                absl::StrCat(label, " ", report->op() == v1::WRITE_LAT ? "write_lat" : "write_bw",
                             gpu ? " from GPU memory" : "", " bar"),
                absl::StrCat(judged.transfer().expected_source(), ": ",
                             judged.transfer().expected_basis()));
  }
  if (!outcome.status.ok()) {
    AddFinding(result, findings::kRdmaLoopbackFailed.code, label,
               absl::StrCat("a transfer through ", label, " to itself",
                            gpu ? absl::StrCat(" from ", outcome.write_bw.memory()) : "",
                            " failed: ", outcome.status.message()));
  }
}

namespace {

// The loopback transfers through one ACTIVE port: host memory, then from
// and into the nearest GPU's memory, each judged against the port, with the
// port's counters around them.
void LoopThrough(const LoopbackTarget& t, const platform::FileTree& sys, const ProbeContext& ctx,
                 v1::ProbeResult* result) {
  const std::string label = absl::StrCat(t.device, ":", t.port);
  // Any valid GID of the port (link-local too): the QPs never leave it.
  absl::StatusOr<transfer::GidChoice> gid = transfer::SelectLoopbackGid(t.gids, t.link_layer);
  if (!gid.ok()) {
    AddFinding(result, findings::kRdmaLoopbackFailed.code, label,
               absl::StrCat("no GID to loop through ", label, ": ", gid.status().message()));
    return;
  }
  const transfer::RdmaLocal local{t.device, static_cast<uint8_t>(t.port), *gid,
                                  t.link_layer == "Ethernet"};
  AddEvidence(result, absl::StrCat(label, " loopback covers"),
              "two QPs on this port turn around inside the HCA: its firmware, driver, "
              "memory registration and PCIe path; not the cable, transceiver, SerDes or "
              "switch (the two-node stage covers those)");
  const transfer::LinkFacts facts =
      transfer::LiveRdmaLinkFacts(ctx.host.sys_root, t.device, t.port);
  // The port's counters around it: an error that grows on a loop that
  // never leaves the HCA points at the HCA.
  const absl::StatusOr<transfer::PortCounters> before =
      transfer::SnapshotPortCounters(sys, t.device, t.port);
  const absl::Time started = absl::Now();
  JudgeLoopback(transfer::RunRdmaLoopback(local, transfer::LoopbackPlan{}), facts, *ctx.profile,
                false, result);
  if (before.ok()) {
    if (auto after = transfer::SnapshotPortCounters(sys, t.device, t.port); after.ok()) {
      transfer::JudgeCounterDeltas(*before, *after, absl::ToDoubleSeconds(absl::Now() - started),
                                   *ctx.profile, result);
    }
  }
  if (t.gpu_pci.empty()) return;
  absl::StatusOr<int> ordinal = platform::GpuMemory::OrdinalOfPciBus(t.gpu_pci);
  if (!ordinal.ok()) {
    AddEvidence(result, absl::StrCat(label, " from GPU memory"),
                absl::StrCat("not run: ", ordinal.status().message()));
    return;
  }
  transfer::RdmaLocal with_gpu = local;
  with_gpu.gpu = *ordinal;
  // Both directions of GPUDirect RDMA: the NIC reads GPU memory, then
  // writes into it.
  for (const bool receives : {false, true}) {
    transfer::LoopbackPlan gpu_plan;
    gpu_plan.latency = false;  // write_lat polls its buffer from the CPU
    gpu_plan.gpu_receives = receives;
    JudgeLoopback(transfer::RunRdmaLoopback(with_gpu, gpu_plan), facts, *ctx.profile, true, result);
  }
}

}  // namespace

absl::StatusOr<v1::ProbeResult> RdmaLoopbackProbe::Run(const ProbeContext& ctx) {
  v1::ProbeResult result;
  const platform::FileTree sys(ctx.host.sys_root);
  std::vector<std::string> not_active;
  absl::StatusOr<std::vector<LoopbackTarget>> listed = LoopbackTargets(sys, &not_active);
  if (!listed.ok()) return listed.status();
  const std::vector<LoopbackTarget>& targets = *listed;
  if (!not_active.empty()) {
    AddEvidence(&result, "not ACTIVE, not tested", absl::StrJoin(not_active, " "));
  }
  if (targets.empty()) {
    result.set_verdict(v1::SKIP);
    result.set_reason(not_active.empty() ? "no RDMA device on this host"
                                         : "no ACTIVE RDMA port to loop through");
    return result;
  }
  for (const LoopbackTarget& t : targets) {
    AddEvidence(&result, absl::StrCat(t.device, ":", t.port),
                absl::StrCat(t.link_layer, t.egress.netdev.empty() ? "" : " via ",
                             t.egress.netdev,
                             t.gpu_pci.empty() ? "" : absl::StrCat(", nearest GPU ", t.gpu_pci)));
  }
  if (!ctx.host.IsLiveSysfs()) {
    result.set_verdict(v1::SKIP);
    result.set_reason("a captured tree: the loopback transfer needs the live HCA");
    return result;
  }
  for (const LoopbackTarget& t : targets) {
    if (absl::Now() >= ctx.deadline) break;  // the worker's deadline holds anyway
    LoopThrough(t, sys, ctx, &result);
  }
  return result;
}

}  // namespace nodeprobe
