// File: gpu_view_probe.h
// Pre-flight probe `gpu-view`: the GPUs the job sees against its grant, each
// one's nearest NIC among those it sees, NCCL_TOPO_FILE against this node
// and NCCL_NET_GDR_LEVEL against those paths (gpu_view.h has the rules).
#pragma once

#include "probes/common/job_arguments.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuViewProbe : public Probe {
 public:
  std::string_view name() const override { return "gpu-view"; }
  std::vector<v1::Stage> stages() const override { return {v1::PREFLIGHT}; }
  std::vector<const ProbeArgument*> arguments() const override { return {&job::kGpusGranted}; }
  std::string_view purpose() const override {
    return "GPUs seen (NVML) vs CUDA_VISIBLE_DEVICES vs the grant; nearest visible NIC per GPU; "
           "NCCL_TOPO_FILE and NCCL_NET_GDR_LEVEL against them";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
