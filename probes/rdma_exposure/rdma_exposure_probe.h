// File: rdma_exposure_probe.h
// Pre-flight probe `rdma-exposure`: the RDMA devices usable from inside the
// job's container or VM (rdma_exposure.h). SKIP when the job does not use
// RDMA and none is visible.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class RdmaExposureProbe : public Probe {
 public:
  std::string_view name() const override { return "rdma-exposure"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::string_view purpose() const override {
    return "the RDMA devices usable from inside the job: uverbs nodes, ACTIVE ports, RoCE GIDs";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
