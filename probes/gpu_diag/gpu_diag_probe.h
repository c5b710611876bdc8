// File: gpu_diag_probe.h
// Probe `gpu-diag` (intrusive: it loads every GPU for minutes): active GPU
// diagnostics. Where NVIDIA DCGM is installed, `dcgmi diag -r LEVEL` runs
// (the profile's gpu_diag.level, 2 by default: a few minutes, and the level
// that finds most faulty GPUs) and its table is judged (dcgmi_diag.h).
// Without dcgmi it SKIPs and says so: nodeprobe's own memory, bandwidth and
// GEMM tests are not built yet. Only our fixed arguments reach dcgmi; the
// profile gives a level 1-4, never a command.
#pragma once

#include <string>

#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuDiagProbe : public Probe {
 public:
  std::string_view name() const override { return "gpu-diag"; }
  bool intrusive() const override { return true; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "active GPU diagnostics (DCGM's dcgmi diag where installed): memory, stress, PCIe";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

namespace gpu_diag {
// The first executable `name` on `path` (a PATH value), or "".
std::string FindOnPath(const std::string& name, const std::string& path);
}  // namespace gpu_diag

}  // namespace nodeprobe
