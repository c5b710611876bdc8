// File: fault_counters_probe.h
// Probe `fault-counters`: the node's hardware error counters (PCIe AER per
// function, RDMA port link_downed/link_error_recovery/symbol_error, NVLink
// replay/recovery/CRC per GPU link through NVML) judged by their growth
// since the last local reading, kept in the state directory
// (counter_baseline.h): a nightly sweep sees what grew since last night,
// and a flap or an error burst between two sweeps is not lost. The first
// run after boot keeps its reading and says so.
#pragma once

#include "probes/framework/probe.h"

namespace nodeprobe {

class FaultCountersProbe : public Probe {
 public:
  std::string_view name() const override { return "fault-counters"; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override {
    return "PCIe AER, RDMA port and NVLink error counters: growth since the last local run "
           "(the sweep's window)";
  }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext& ctx) override;
};

}  // namespace nodeprobe
