// File: gpu_probe.h
// Probe `gpu`: every GPU's inventory and health from NVML, in nvidia-smi
// order: model, bus id, driver, VBIOS, persistence and MIG mode, ECC with
// uncorrected errors, row remapping / page retirement waiting for a reset,
// clock slowdowns that are faults, NVLink links down, compute processes
// (a busy node). SKIP with the reason where there is no driver or no GPU.
#pragma once

#include "nodeprobe/v1/gpu.pb.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuProbe : public Probe {
 public:
  std::string_view name() const override { return "gpu"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "NVML inventory and health per GPU: ECC, row remapping, throttling, NVLink, "
           "busy GPUs";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// The findings for what NVML reported.
v1::ProbeResult JudgeGpus(const v1::GpuReport& report);

}  // namespace nodeprobe
