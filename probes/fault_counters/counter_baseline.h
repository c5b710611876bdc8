// File: counter_baseline.h
// The hardware error counters of one node at one moment (PCIe AER per
// function, RDMA port error counters, NVLink data-link errors per GPU
// link), kept as JSON (protobuf's mapping of CounterBaseline) in a state
// directory between runs, so a run judges their growth since the last
// one: the window of a nightly sweep, which has no agent watching between
// its runs. A baseline from another boot, or one that does not parse, is
// no baseline: counters restart with the node.
//   (its findings, with severity and remedy: probes/fault_counters/fault_counters_findings.h)
//   a recovery
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/gpu.pb.h"
#include "nodeprobe/v1/result.pb.h"
#include "probes/kernel_events/aer_counters.h"
#include "probes/kernel_events/faults_profile.h"
#include "probes/kernel_events/port_counters.h"

namespace nodeprobe::counters {

// Where baselines live: $NODEPROBE_STATE_DIR, else systemd's
// $STATE_DIRECTORY (the sweep unit's StateDirectory=nodeprobe-sweep), else
// /var/lib/nodeprobe-sweep when it exists and is writable; "" none.
std::string StateDir();

v1::CounterBaseline MakeBaseline(absl::Time taken, const std::string& boot_id,
                                 const kernel::AerSnapshot& aer, const kernel::PortSnapshot& ports,
                                 const v1::GpuReport* gpus);
kernel::AerSnapshot AerOf(const v1::CounterBaseline& b);
kernel::PortSnapshot PortsOf(const v1::CounterBaseline& b);

// NOT_FOUND when there is none; DATA_LOSS naming the file when it does not parse.
absl::StatusOr<v1::CounterBaseline> LoadBaseline(const std::string& path);
// Written whole to a temporary file and renamed over `path`.
absl::Status SaveBaseline(const std::string& path, const v1::CounterBaseline& b);

// GPU_NVLINK_ERRORS per GPU link whose counters grew faster than the rule
// (CRC flit + CRC data + replay), or whose recovery count grew at all.
void JudgeNvlinkGrowth(const v1::CounterBaseline& before, const v1::CounterBaseline& after,
                       absl::Duration elapsed, const FaultRules& rules, v1::ProbeResult* result);

}  // namespace nodeprobe::counters
