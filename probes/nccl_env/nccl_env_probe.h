// File: nccl_env_probe.h
// Pre-flight probe `nccl-env`: the job's NCCL_* variables against the RDMA
// devices and interfaces this container or VM sees (nccl_env.h). SKIP
// when none is set: NCCL's defaults pick from what is there.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class NcclEnvProbe : public Probe {
 public:
  std::string_view name() const override { return "nccl-env"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::string_view purpose() const override {
    return "the job's NCCL_* variables against the devices and interfaces it sees";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
