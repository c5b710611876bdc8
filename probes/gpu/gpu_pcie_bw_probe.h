// File: gpu_pcie_bw_probe.h
// Probe `gpu-pcie-bw`: host <-> device copy bandwidth from pinned memory per
// GPU (H2D, D2H, both at once), judged against the GPU's negotiated PCIe
// link: catches links that train right but move slowly (a switch uplink,
// a riser, an IOMMU in translation mode, a throttled root port).
#pragma once

#include <optional>

#include "platform/gpu_memory.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuPcieBwProbe : public Probe {
 public:
  std::string_view name() const override { return "gpu-pcie-bw"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "pinned host<->GPU copy bandwidth per GPU against its negotiated PCIe link";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// What a link can carry per direction in GB/s (10^9 B/s):
//   PcieBandwidthGBps(GT/s, lanes) x MPS / (MPS + 26)
// the line rate after encoding (probes/pcie/pcie_link.h), times the share
// of each TLP that is payload: 26 B per TLP on Gen3 and later (4 B framing
// token, 2 B sequence number, 16 B 4-DW header for 64-bit addresses, 4 B
// LCRC) at a 256 B max payload (MPS), the common value on GPU servers.
// DLLPs (ACKs, flow-control credits) take a few percent more, which the bar
// below leaves room for.
inline constexpr int kAssumedMaxPayloadBytes = 256;
double ExpectedCopyGBps(double link_gts, int link_width);

// A direction below this fraction of the expectation is a FAIL. cudaMemcpy
// from pinned memory reaches ~0.90-0.95 of it on healthy links.
inline constexpr double kMinFractionOfLink = 0.80;

struct GpuLink {
  std::string bus_id;
  std::optional<double> gts;  // current_link_speed
  std::optional<int> width;   // current_link_width
};

// Findings and measurements for one GPU's figures.
void JudgeCopyBandwidth(const GpuLink& link, const platform::CopyBandwidth& bw,
                        v1::ProbeResult* result);

}  // namespace nodeprobe
