// File: gpu_diag_probe.h
// Probe `gpu-diag` (intrusive: it loads every GPU for minutes): active GPU
// diagnostics. nodeprobe's own tests on every GPU the driver sees
// (own_diag.h: memory patterns, HBM triad, cuBLAS GEMM, with NVML sampled
// during the load), and where NVIDIA DCGM is installed `dcgmi diag -r
// LEVEL` beside them (the profile's gpu_diag.level, 2 by default: a few
// minutes, and the level that finds most faulty GPUs), its table judged
// (dcgmi_diag.h). SKIP, saying why, only with neither a driver nor dcgmi.
// Only our fixed arguments reach dcgmi; the profile gives a level 1-4,
// never a command.
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
    return "active GPU diagnostics: memory patterns, HBM bandwidth, GEMM (and dcgmi diag where "
           "installed)";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

namespace gpu_diag {
// The first executable `name` on `path` (a PATH value), or "".
std::string FindOnPath(const std::string& name, const std::string& path);
}  // namespace gpu_diag

}  // namespace nodeprobe
