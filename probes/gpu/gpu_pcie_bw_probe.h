// File: gpu_pcie_bw_probe.h
// Probe `gpu-pcie-bw`: host <-> device copy bandwidth from pinned memory per
// GPU (H2D, D2H, both at once), judged against the GPU's negotiated PCIe
// link: catches links that train right but move slowly (a switch uplink,
// a riser, an IOMMU in translation mode, a throttled root port).
#pragma once

#include <optional>

#include "platform/gpu_memory.h"
#include "probes/pcie/pcie_link.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuPcieBwProbe : public Probe {
 public:
  std::string_view name() const override { return "gpu-pcie-bw"; }
  bool intrusive() const override { return true; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "pinned host<->GPU copy bandwidth per GPU against its negotiated PCIe link";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// The bar: each direction's copies against the link's TLP payload rate
// (pcie::PciePayloadGBps; both directions at once against twice that). A
// direction below this fraction of it is a FAIL. cudaMemcpy from pinned
// memory reaches ~0.90-0.95 of it on healthy links.
inline constexpr double kMinFractionOfLink = 0.80;

struct GpuLink {
  std::string bus_id;
  std::optional<pcie::PcieLink> link;  // nullopt: not readable, no bar
};

// Findings and measurements for one GPU's figures.
void JudgeCopyBandwidth(const GpuLink& link, const platform::CopyBandwidth& bw,
                        v1::ProbeResult* result);

}  // namespace nodeprobe
