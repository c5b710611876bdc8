// File: interfaces_probe.h
// Pre-flight probe `interfaces`: the job's secondary interfaces (Multus,
// SR-IOV VFs, IPoIB) up, with carrier, at the profile's MTU, and RDMA-backed
// when the job expects RDMA (interfaces.h has the rules and findings).
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class InterfacesProbe : public Probe {
 public:
  std::string_view name() const override { return "interfaces"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::string_view purpose() const override {
    return "secondary interfaces (Multus, SR-IOV VF, IPoIB): up, MTU, RDMA-backed, VF vs PF";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
