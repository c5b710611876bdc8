// File: host_config_probe.h
// Probe `host-config`: the host settings RDMA and GPU work depend on (IOMMU
// mode, NUMA balancing, CPU governor, the rails' ARP settings), judged
// against the profile's host: section. It needs no NIC or GPU: without a
// host: key it records the values and SKIPs, never a PASS on nothing.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class HostConfigProbe : public Probe {
 public:
  std::string_view name() const override { return "host-config"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "host settings against the profile's host: section: IOMMU mode, NUMA balancing, "
           "CPU governor, ARP/rp_filter of rails sharing a subnet";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
