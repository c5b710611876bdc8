// File: rdma_devices_probe.h
// Probe `rdma-devices`: every RDMA device and port — state, rate, link
// layer, subnet manager, GID table, error counters — judged against what a
// multi-node job needs and the profile's expectations.
#pragma once

#include <vector>

#include "platform/rdma_sysfs.h"
#include "platform/pci_sysfs.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

// Error counters that should stay zero on a healthy link (IBTA PortCounters).
const std::vector<std::string>& RdmaErrorCounterNames();

class RdmaDevicesProbe : public Probe {
 public:
  std::string_view name() const override { return "rdma-devices"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "RDMA ports: state, rate, subnet manager, RoCE v2 GIDs, error "
           "counters";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// Judges devices already read (the testable core of Run). `query_verbs`
// asks libibverbs for the active MTU (live hosts only). `pci` (the node's
// PCI functions) finds RDMA-capable NICs without an RDMA device:
//   (its findings, with severity and remedy: probes/rdma_devices/rdma_devices_findings.h)
v1::ProbeResult JudgeRdmaDevices(
    const std::vector<platform::RawRdmaDevice>& devices, const Profile& profile,
    bool query_verbs, const std::map<std::string, platform::RawPciDevice>& pci = {});

}  // namespace nodeprobe
