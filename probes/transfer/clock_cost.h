// File: clock_cost.h
// What one timestamp costs on this host. Latency loops read
// CLOCK_MONOTONIC_RAW once per round trip, as perftest reads the TSC once
// per iteration; through the vDSO that costs 25 ns against rdtsc's 11 on
// this project's kvm-clock VM (80 vs 40 while it builds; bench/clock_cost),
// under 1% of a 2 us RDMA round trip, so the clock stays (no TSC rate to
// calibrate, no dependence on constant_tsc). A clocksource the vDSO cannot read
// (hpet, acpi_pm: an unstable TSC) makes each read a syscall of a
// microsecond or more. The measured cost is subtracted from the figures
// (SubtractClockCost) and said in the evidence; a slow clock still warns:
//   CLOCK_READ_SLOW  one read costs more than kSlowClockReadNs: WARN,
//                    naming the clocksource and the cost per round trip
#pragma once

#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::transfer {

inline constexpr double kSlowClockReadNs = 250;

struct ClockCost {
  double ns_per_read = 0;   // fastest of 21 batches of 64 reads (load only adds)
  std::string clocksource;  // "tsc", "kvm-clock", "hpet"; "" when unreadable
};

ClockCost MeasureClockCost(const std::string& sys_root = "/sys");

// Takes one read's cost out of every latency figure of `report` (each
// round trip holds one read; the figures are one-way, so half of it):
// "measure and subtract", said in the evidence by JudgeClockCost.
void SubtractClockCost(const ClockCost& cost, v1::TransferReport* report);

// Evidence of the cost, and CLOCK_READ_SLOW when it is above the bar.
void JudgeClockCost(const ClockCost& cost, v1::ProbeResult* result);

}  // namespace nodeprobe::transfer
