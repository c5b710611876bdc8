// File: inventory_probe.h
// Probe `inventory`: the version matrix of this node, the first piece of
// acceptance evidence. Absent components are facts, not errors; the verdict
// is FAIL only when a profile pins a version that differs.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class InventoryProbe : public Probe {
 public:
  std::string_view name() const override { return "inventory"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "version matrix: OS, kernel, IOMMU flags, rdma-core, HCA firmware, "
           "NVIDIA driver, peermem, CUDA, NCCL, hwloc";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

// Adds VERSION_MISMATCH findings for every pinned component that differs.
void JudgePinnedVersions(const Profile& profile, v1::ProbeResult* result);

}  // namespace nodeprobe
