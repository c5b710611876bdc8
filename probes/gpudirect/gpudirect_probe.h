// File: gpudirect_probe.h
// Probe `gpudirect`: can a GPU and its NIC do GPUDirect RDMA here, judged
// without loading a GPU — ACS on the bridges between them, IOMMU mode, and
// the registration methods available (nvidia_peermem, or dma-buf: kernel
// >= 5.12 + the open NVIDIA module + rdma-core's ibv_reg_dmabuf_mr).
// On a live host where a method is available it also registers GPU memory
// with each GPU's nearest HCA (dma-buf first, then peermem), as the transfer
// engine does, and says per pair which method worked.
#pragma once

#include <map>
#include <vector>

#include "platform/file_tree.h"
#include "platform/pci_sysfs.h"
#include "probes/framework/probe.h"

namespace nodeprobe {

class GpuDirectProbe : public Probe {
 public:
  std::string_view name() const override { return "gpudirect"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "GPUDirect RDMA readiness: ACS on GPU-NIC paths, IOMMU mode, "
           "peermem/dma-buf support";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// The GPU's nearest NIC by PCI path (most bridges in common), and the
// bridges peer-to-peer traffic between them crosses: every bridge at or
// below their lowest common bridge, or all of both paths when they share
// none (traffic then turns in the root complex).
struct GpuNicPath {
  std::string gpu;
  std::string nic;
  std::vector<std::string> bridges;  // below their deepest common bridge
  bool through_root_complex = false;  // no bridge in common (root ports)
};
std::vector<GpuNicPath> GpuNicPaths(
    const std::map<std::string, platform::RawPciDevice>& devices,
    const std::vector<std::string>& gpus, const std::vector<std::string>& nics);

}  // namespace nodeprobe
