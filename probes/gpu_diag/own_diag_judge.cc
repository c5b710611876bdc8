// File: own_diag_judge.cc
// JudgeOwnDiag (own_diag.h): the figures of gpu-diag's own tests against
// their bars, a measurement for each and a finding where one falls short.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/gemm_peaks.h"
#include "probes/gpu_diag/gpu_diag_findings.h"
#include "probes/gpu_diag/own_diag.h"

namespace nodeprobe::gpu_diag {
namespace {

void JudgeMemory(const OwnDiagGpu& g, v1::ProbeResult* r) {
  const std::map<std::string, std::string> labels = {{"gpu", g.bus_id}};
  AddMeasurement(r, "memory_tested_bytes", static_cast<double>(g.memory.bytes), "bytes", labels);
  AddMeasurement(r, "memory_bad_words", static_cast<double>(g.memory.bad_words), "words", labels);
  if (g.memory.bad_words == 0) return;
  AddFinding(r, findings::kGpuMemoryTestErrors.code, g.bus_id,
             absl::StrFormat("%s: %d 32-bit words read back wrong over %.1f GiB and %d pattern "
                             "fills (patterns that failed: %s; the lowest at byte offset 0x%x)",
                             g.bus_id, g.memory.bad_words, g.memory.bytes / 1073741824.0,
                             g.memory.patterns, absl::StrJoin(g.memory.failed_patterns, ", "),
                             g.memory.first_bad_offset));
}

void JudgeTriad(const OwnDiagGpu& g, const GpuDiagRules& rules, v1::ProbeResult* r) {
  const std::map<std::string, std::string> labels = {{"gpu", g.bus_id}};
  AddMeasurement(r, "hbm_triad_gbps", g.triad_gbps, "GB/s", labels);
  if (g.hbm_theoretical_gbps <= 0) {
    AddEvidence(r, absl::StrCat("gpu-diag.", g.bus_id, ".hbm_bar"),
                "not judged: NVML gave no memory clock or bus width");
    return;
  }
  AddMeasurement(r, "hbm_theoretical_gbps", g.hbm_theoretical_gbps, "GB/s", labels);
  const double bar = rules.hbm_min_fraction * g.hbm_theoretical_gbps;
  if (g.triad_gbps >= bar) return;
  AddFinding(r, findings::kGpuHbmBandwidthLow.code, g.bus_id,
             absl::StrFormat("%s: triad %.0f GB/s, %.0f%% of the %.0f GB/s its memory clock and "
                             "bus width allow (bar %.0f%%, gpu_diag.hbm_min_fraction)",
                             g.bus_id, g.triad_gbps, 100 * g.triad_gbps / g.hbm_theoretical_gbps,
                             g.hbm_theoretical_gbps, 100 * rules.hbm_min_fraction));
}

void JudgeGemm(const OwnDiagGpu& g, const GpuDiagRules& rules, v1::ProbeResult* r) {
  AddMeasurement(r, "gemm_tflops", g.gemm.tflops, "TFLOPS",
                 {{"gpu", g.bus_id}, {"n", absl::StrCat(g.gemm.n)}, {"dtype", g.gemm.dtype}});
  const GemmPeak peak = GemmPeakOf(g.name);
  double bar = 0;
  std::string basis;
  if (rules.gemm_min_tflops > 0) {
    bar = rules.gemm_min_tflops;
    basis = "gpu_diag.gemm_min_tflops";
  } else if (peak.tflops > 0) {
    bar = rules.gemm_min_fraction * peak.tflops;
    basis = absl::StrFormat("%.0f%% of the %s's datasheet dense bf16 peak %.0f TFLOPS",
                            100 * rules.gemm_min_fraction, peak.model, peak.tflops);
  } else {
    AddEvidence(r, absl::StrCat("gpu-diag.", g.bus_id, ".gemm_bar"),
                absl::StrCat("not judged: '", g.name,
                             "' is not in the table; set gpu_diag.gemm_min_tflops"));
    return;
  }
  if (g.gemm.tflops >= bar) return;
  AddFinding(
      r, findings::kGpuGemmBelowExpected.code, g.bus_id,
      absl::StrFormat("%s: %d x %d bf16 GEMM at %.0f TFLOPS through %s, below %.0f (%s)", g.bus_id,
                      g.gemm.n, g.gemm.n, g.gemm.tflops, g.gemm.library, bar, basis));
}

void JudgeLoad(const OwnDiagGpu& g, v1::ProbeResult* r) {
  const LoadTelemetry& t = g.load;
  if (t.samples == 0) return;
  const std::map<std::string, std::string> labels = {{"gpu", g.bus_id}};
  AddMeasurement(r, "load_max_temperature_c", t.max_temperature_c, "C", labels);
  AddMeasurement(r, "load_max_power_w", t.max_power_mw / 1000.0, "W", labels);
  if (t.min_sm_clock_mhz > 0)
    AddMeasurement(r, "load_min_sm_clock_mhz", t.min_sm_clock_mhz, "MHz", labels);
  if (t.fault_throttles.empty()) return;
  AddFinding(r, findings::kGpuThrottledUnderLoad.code, g.bus_id,
             absl::StrFormat("%s: %s during the load (%d NVML samples; up to %d C, %.0f W, SM "
                             "clock down to %d MHz)",
                             g.bus_id, absl::StrJoin(t.fault_throttles, ", "), t.samples,
                             t.max_temperature_c, t.max_power_mw / 1000.0, t.min_sm_clock_mhz));
}

}  // namespace

void JudgeOwnDiag(const std::vector<OwnDiagGpu>& gpus, const GpuDiagRules& rules,
                  v1::ProbeResult* r) {
  for (const OwnDiagGpu& g : gpus) {
    if (!g.error.empty()) {
      AddFinding(r, findings::kGpuDiagNotRun.code, g.bus_id,
                 absl::StrCat(g.bus_id, ": nodeprobe's GPU tests did not run: ", g.error));
      continue;
    }
    for (const std::string& e : g.test_errors) {
      AddFinding(r, findings::kGpuDiagNotRun.code, g.bus_id, absl::StrCat(g.bus_id, ": ", e));
    }
    if (g.memory_ran) JudgeMemory(g, r);
    if (g.triad_gbps > 0) JudgeTriad(g, rules, r);
    if (g.gemm_ran) JudgeGemm(g, rules, r);
    JudgeLoad(g, r);
  }
}

}  // namespace nodeprobe::gpu_diag
