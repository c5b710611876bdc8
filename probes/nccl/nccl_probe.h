// File: nccl_probe.h
// Probe `nccl`: the collectives over every GPU of this node (one rank per
// GPU, each in its own worker), nccl-tests' sizes, timing and checks, what
// NCCL said it did, judged against the profile. SKIP without CUDA, NCCL or
// a GPU; how it runs comes from the profile's nccl: section.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class NcclProbe : public Probe {
 public:
  std::string_view name() const override { return "nccl"; }
  bool intrusive() const override { return true; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "NCCL collectives over this node's GPUs: busbw, wrong results, hangs, what NCCL used";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
