// File: clock_cost.cc
#include "probes/transfer/clock_cost.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {

ClockCost MeasureClockCost(const std::string& sys_root) {
  constexpr int kBatches = 21, kReads = 64;
  std::vector<double> per_read;
  for (int b = 0; b < kBatches; ++b) {
    const int64_t start = NowNs();
    int64_t last = start;
    for (int i = 0; i < kReads; ++i) last = NowNs();
    per_read.push_back(static_cast<double>(last - start) / kReads);
  }
  // The fastest batch: load only ever adds time (a preempted or
  // cache-cold batch), so the minimum is what a read costs on this host,
  // and a busy host does not read as a slow clock.
  ClockCost cost;
  cost.ns_per_read = *std::min_element(per_read.begin(), per_read.end());
  absl::StatusOr<std::string> source = platform::FileTree(sys_root).ReadValue(
      "devices/system/clocksource/clocksource0/current_clocksource");
  if (source.ok()) cost.clocksource = std::string(absl::StripAsciiWhitespace(*source));
  return cost;
}

void JudgeClockCost(const ClockCost& cost, v1::ProbeResult* result) {
  const std::string source = cost.clocksource.empty() ? "unknown" : cost.clocksource;
  AddEvidence(result, "clock read (CLOCK_MONOTONIC_RAW, once per round trip)",
              absl::StrFormat("%.0f ns per read; clocksource %s", cost.ns_per_read, source));
  if (cost.ns_per_read <= kSlowClockReadNs) return;
  AddFinding(result, "CLOCK_READ_SLOW", source,
             absl::StrFormat("one clock read costs %.0f ns here (clocksource %s, not readable "
                             "through the vDSO): each latency round trip includes it",
                             cost.ns_per_read, source));
}

}  // namespace nodeprobe::transfer
