// File: aer_counters.h
// PCIe AER counters over time: every function's aer_dev_correctable,
// aer_dev_nonfatal and aer_dev_fatal under sys/bus/pci/devices (the
// kernel's sysfs-bus-pci-devices-aer ABI: one "NAME COUNT" line per error
// bit, then TOTAL_ERR_COR / TOTAL_ERR_NONFATAL / TOTAL_ERR_FATAL), read as
// snapshots whose growth over a window is judged:
//   (its findings, with severity and remedy: probes/kernel_events/kernel_events_findings.h)
// The counters see what a rate-limited or rotated kernel log misses.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"
#include "probes/kernel_events/faults_profile.h"

namespace nodeprobe::kernel {

struct AerTotals {
  uint64_t corrected = 0;
  uint64_t nonfatal = 0;
  uint64_t fatal = 0;
  std::map<std::string, uint64_t> bits;  // "Receiver Error" -> count, all three files
  bool operator==(const AerTotals& o) const {
    return corrected == o.corrected && nonfatal == o.nonfatal && fatal == o.fatal && bits == o.bits;
  }
};
// By PCI function ("0000:00:1c.0"); functions without AER files are absent.
using AerSnapshot = std::map<std::string, AerTotals>;

AerSnapshot ReadAerCounters(const platform::FileTree& sys);

// Each counter of `after` that grew since `before`, by how much (a counter
// absent from `before` is a new baseline, not growth); `*went_back` when one
// is lower (cleared by a reset). Shared by the AER and port judges.
std::map<std::string, uint64_t> CounterGrowth(const std::map<std::string, uint64_t>& before,
                                              const std::map<std::string, uint64_t>& after,
                                              bool* went_back = nullptr);
// "link_downed +1, symbol_error +28"
std::string GrowthText(const std::map<std::string, uint64_t>& grew);

// The growth from `before` to `after` over `elapsed`: a measurement per
// function that grew, and the findings above. A function absent from
// `before` (hot-plugged, or reset) is a new baseline, not growth.
void JudgeAerGrowth(const AerSnapshot& before, const AerSnapshot& after, absl::Duration elapsed,
                    const FaultRules& rules, v1::ProbeResult* result);

}  // namespace nodeprobe::kernel
