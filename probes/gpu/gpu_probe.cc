#include "probes/gpu/gpu_probe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/nvml.h"
#include "probes/framework/result_util.h"
#include "probes/gpu/gpu_findings.h"

namespace nodeprobe {
namespace {

std::string Label(const v1::GpuInfo& g) {
  return absl::StrCat("GPU", g.index(), g.bus_id().empty() ? "" : " (" + g.bus_id() + ")");
}

void Judge(const v1::GpuInfo& g, v1::ProbeResult* out) {
  const std::string dev = g.bus_id().empty() ? absl::StrCat("GPU", g.index()) : g.bus_id();
  if (!g.error().empty()) {
    AddFinding(out, findings::kGpuUnreadable.code, dev, absl::StrCat(Label(g), ": ", g.error()));
    return;
  }
  if (g.row_remap_failed()) {
    AddFinding(out, findings::kGpuRowRemapFailed.code, dev,
               absl::StrCat(Label(g), ": a row remapping failed (no spare rows left)"));
  }
  if (g.row_remap_pending() || g.retired_pages_pending()) {
    AddFinding(out, findings::kGpuRemapPending.code, dev,
               absl::StrCat(Label(g), ": ",
                            g.row_remap_pending() ? "a row remapping" : "a page retirement",
                            " waits for a GPU reset; until then the bad memory is in use"));
  }
  if (g.ecc_uncorrected_volatile() > 0) {
    AddFinding(out, findings::kGpuEccUncorrected.code, v1::FAIL, dev,
               absl::StrCat(Label(g), ": ", g.ecc_uncorrected_volatile(),
                            " uncorrected ECC error(s) since the driver loaded"));
  } else if (g.ecc_uncorrected_aggregate() > 0) {
    AddFinding(out, findings::kGpuEccUncorrected.code, v1::WARN, dev,
               absl::StrCat(Label(g), ": ", g.ecc_uncorrected_aggregate(),
                            " uncorrected ECC error(s) over its life (none since the driver "
                            "loaded)"));
  }
  if (g.ecc_supported() && !g.ecc_enabled()) {
    AddFinding(out, findings::kGpuEccDisabled.code, dev,
               absl::StrCat(Label(g), ": ECC is supported but off"));
  }
  if (!g.throttle_names().empty()) {
    AddFinding(
        out, findings::kGpuThrottled.code, dev,
        absl::StrCat(Label(g), ": clocks held down by ", absl::StrJoin(g.throttle_names(), ", ")));
  }
  if (!g.nvlinks_down().empty()) {
    // Some links up and some down is a fault; none up is a GPU whose NVLink
    // is not cabled (a PCIe card without its bridge): say so, milder.
    const bool partial = g.nvlinks_active() > 0;
    AddFinding(
        out, findings::kGpuNvlinkDown.code, partial ? v1::FAIL : v1::WARN, dev,
        absl::StrCat(Label(g), ": NVLink ", g.nvlinks_down_size(), " of ", g.nvlinks_supported(),
                     " link(s) down (", absl::StrJoin(g.nvlinks_down(), ","), ")",
                     partial ? "" : "; none is up"));
  }
  if (g.compute_processes() > 0) {
    AddFinding(out, findings::kGpuBusy.code, dev,
               absl::StrCat(Label(g), ": ", g.compute_processes(),
                            " compute process(es) running; measurements on this node are "
                            "not of an idle machine"));
  }
}

}  // namespace

v1::ProbeResult JudgeGpus(const v1::GpuReport& report) {
  v1::ProbeResult out;
  out.set_probe("gpu");
  *out.mutable_gpu() = report;
  AddEvidence(&out, "nvml.library", report.nvml_library());
  AddEvidence(&out, "nvml.driver_version", report.driver_version());
  for (const v1::GpuInfo& g : report.gpus()) {
    AddEvidence(&out, absl::StrCat("nvml.gpu", g.index()),
                absl::StrCat(g.name(), " ", g.bus_id(), " vbios ", g.vbios()));
    Judge(g, &out);
  }
  return out;
}

absl::StatusOr<v1::ProbeResult> GpuProbe::Run(const ProbeContext& ctx) {
  // NVML reads the live driver: a captured tree is never judged by the
  // GPUs of the machine that analyses it.
  if (ctx.host.IsCaptured() || !ctx.host.topology_xml.empty()) {
    return SkipResult("gpu", "NVML state is not in a captured tree or topology export (live only)");
  }
  absl::StatusOr<v1::GpuReport> report = platform::ReadNvmlGpus();
  if (!report.ok()) {
    if (!absl::IsFailedPrecondition(report.status())) return report.status();
    return SkipResult("gpu", std::string(report.status().message()));
  }
  if (report->gpus().empty()) {
    v1::ProbeResult skip = JudgeGpus(*report);
    skip.set_verdict(v1::SKIP);
    skip.set_reason("the NVIDIA driver reports no GPU");
    return skip;
  }
  return JudgeGpus(*report);
}

}  // namespace nodeprobe
