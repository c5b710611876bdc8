// File: roce_config_probe.h
// Probe `roce-config`: the host side of the RoCE congestion design, per
// RoCE port (roce_settings.h), judged against the profile's roce: section.
// Without a RoCE port it SKIPs; without a roce: key it records the values
// (and the fleet's configuration matrix gets them) and SKIPs, never a PASS
// on nothing.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class RoceConfigProbe : public Probe {
 public:
  std::string_view name() const override { return "roce-config"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "RoCE congestion configuration against the profile's roce: section: trust, PFC on "
           "the RDMA priority only, ECN, rdma_cm's default ToS, pause storms";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
