// What both replays (gloo_replay.h, nccl_replay.h) share: the clock every
// op is timed on, the calibrated spin that stands in for compute, and how
// an op's bytes become the float elements a library is called with.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace nodeprobe::workload {

using ReplayClock = std::chrono::steady_clock;

inline double MsSince(ReplayClock::time_point start) {
  return std::chrono::duration<double, std::milli>(ReplayClock::now() - start).count();
}

// Busy until `ms` after `from`: a rank's compute holds its CPU, as a
// training step's kernels hold its GPU.
inline void SpinFor(ReplayClock::time_point from, double ms) {
  const ReplayClock::time_point until = from + std::chrono::duration_cast<ReplayClock::duration>(
                                                   std::chrono::duration<double, std::milli>(ms));
  while (ReplayClock::now() < until) {
  }
}

// The op's bytes as float elements, a whole share for each of `members`.
inline size_t Elements(uint64_t bytes, int members) {
  const size_t n = std::max<size_t>(1, (bytes + sizeof(float) - 1) / sizeof(float));
  const size_t m = static_cast<size_t>(std::max(1, members));
  return (n + m - 1) / m * m;
}

}  // namespace nodeprobe::workload
