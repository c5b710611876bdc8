// RDMA port error counters over time, outside any transfer: every port's
// link_downed, link_error_recovery and symbol_error under
// class/infiniband/DEV/ports/N/counters (the kernel's sysfs-class-infiniband
// ABI), read as snapshots whose growth over a window is judged: a link that
// went down or retrained is a flap, symbol errors on the wire are judged at
// `error_severity` (the profile's transfer.error_counters_grew). Codes and
// severities: kernel_events_findings.h (the flap), framework_findings.h (the
// errors).
// A flap between two transfers, or at night between two sweeps, shows here
// even when no transfer ran across it (counter_deltas.h judges those).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"

namespace nodeprobe::kernel {

// "mlx5_0:1" -> counter name -> value; ports without counters absent.
using PortSnapshot = std::map<std::string, std::map<std::string, uint64_t>>;

PortSnapshot ReadPortErrorCounters(const platform::FileTree& sys);

// A port absent from `before`, or a counter that went back (a reset), is a
// new baseline, not growth.
void JudgePortGrowth(const PortSnapshot& before, const PortSnapshot& after, absl::Duration elapsed,
                     v1::Verdict error_severity, v1::ProbeResult* result);

}  // namespace nodeprobe::kernel
