#include "probes/gpu/gpu_pcie_bw_probe.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "probes/framework/result_util.h"
#include "probes/gpu/gpu_findings.h"
#include "probes/pcie/pcie_link.h"

namespace nodeprobe {
namespace {

constexpr size_t kCopyBytes = 64u << 20;  // large enough for the copy engines' peak
constexpr int kIterations = 20;

v1::ProbeResult Skip(const std::string& reason) { return SkipResult("gpu-pcie-bw", reason); }

}  // namespace

void JudgeCopyBandwidth(const GpuLink& link, const platform::CopyBandwidth& bw,
                        v1::ProbeResult* result) {
  const bool known = link.link.has_value();
  const double expected = known ? pcie::PciePayloadGBps(link.link->gts, link.link->width) : 0;
  struct Direction {
    const char* name;
    double measured;
    double expected;
  };
  const Direction dirs[] = {{"h2d", bw.h2d_gbps, expected},
                            {"d2h", bw.d2h_gbps, expected},
                            {"bidirectional", bw.bidir_gbps, 2 * expected}};
  for (const Direction& d : dirs) {
    std::map<std::string, std::string> labels = {{"device", link.bus_id}, {"direction", d.name}};
    if (known) labels["expected_gbps"] = absl::StrFormat("%.1f", d.expected);
    AddMeasurement(result, "gpu_copy_bandwidth", d.measured, "GB/s", labels);
    if (!known || d.measured >= kMinFractionOfLink * d.expected) continue;
    AddFinding(
        result, findings::kGpuPcieBwBelowExpected.code, link.bus_id,
        absl::StrFormat("GPU %s %s copies move %.1f GB/s, %.0f%% of the %.1f GB/s its "
                        "link (%.0f GT/s x%d) carries (bar: %.0f%%)",
                        link.bus_id, d.name, d.measured, 100 * d.measured / d.expected, d.expected,
                        link.link->gts, link.link->width, 100 * kMinFractionOfLink));
  }
  AddEvidence(result, absl::StrCat("expected.", link.bus_id),
              known ? absl::StrFormat("%.0f GT/s x%d x encoding x 256/(256+24) = %.1f GB/s per "
                                      "direction",
                                      link.link->gts, link.link->width, expected)
                    : "link speed/width not readable: no bar");
}

absl::StatusOr<v1::ProbeResult> GpuPcieBwProbe::Run(const ProbeContext& ctx) {
  if (ctx.host.IsCaptured() || !ctx.host.topology_xml.empty()) {
    return Skip("copy bandwidth is measured on the live host only");
  }
  absl::StatusOr<std::vector<std::string>> buses = platform::CudaDeviceBusIds();
  if (!buses.ok()) {
    if (absl::IsFailedPrecondition(buses.status())) return Skip(std::string(buses.status().message()));
    return buses.status();
  }
  if (buses->empty()) return Skip("the CUDA driver reports no GPU");
  v1::ProbeResult result;
  result.set_probe("gpu-pcie-bw");
  platform::FileTree sys(ctx.host.sys_root);
  for (size_t i = 0; i < buses->size(); ++i) {
    const GpuLink link{(*buses)[i],
                       pcie::ReadCurrentLink(sys, "bus/pci/devices/" + (*buses)[i])};
    absl::StatusOr<platform::CopyBandwidth> bw =
        platform::MeasureCopyBandwidth(static_cast<int>(i), kCopyBytes, kIterations);
    if (!bw.ok()) {
      AddFinding(&result, findings::kGpuCopyFailed.code, link.bus_id,
                 absl::StrCat("GPU ", link.bus_id, ": ", bw.status().message()));
      continue;
    }
    JudgeCopyBandwidth(link, *bw, &result);
  }
  return result;
}

}  // namespace nodeprobe
