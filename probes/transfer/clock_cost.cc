#include "probes/transfer/clock_cost.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_format.h"
#include "platform/file_tree.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_findings.h"
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

void SubtractClockCost(const ClockCost& cost, v1::TransferReport* report) {
  if (cost.ns_per_read <= 0) return;
  const double one_way_us = cost.ns_per_read / 2.0 / 1000.0;
  auto less = [&](double us) { return std::max(0.0, us - one_way_us); };
  for (v1::TransferResult& row : *report->mutable_results()) {
    if (!row.has_latency()) continue;
    v1::LatencyStats* l = row.mutable_latency();
    l->set_min_us(less(l->min_us()));
    l->set_max_us(less(l->max_us()));
    l->set_median_us(less(l->median_us()));
    l->set_avg_us(less(l->avg_us()));
    l->set_p99_us(less(l->p99_us()));
    l->set_p999_us(less(l->p999_us()));
  }
}

void JudgeClockCost(const ClockCost& cost, v1::ProbeResult* result) {
  const std::string source = cost.clocksource.empty() ? "unknown" : cost.clocksource;
  AddEvidence(result, "clock read (CLOCK_MONOTONIC_RAW, once per round trip)",
              absl::StrFormat("%.0f ns per read; clocksource %s; subtracted from every latency "
                              "figure (%.1f ns one-way)",
                              cost.ns_per_read, source, cost.ns_per_read / 2));
  if (cost.ns_per_read <= kSlowClockReadNs) return;
  AddFinding(result, findings::kClockReadSlow.code, source,
             absl::StrFormat("one clock read costs %.0f ns here (clocksource %s, not readable "
                             "through the vDSO): subtracted from the figures, but its jitter "
                             "stays in them",
                             cost.ns_per_read, source));
}

}  // namespace nodeprobe::transfer
