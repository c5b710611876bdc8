// File: transfer_stats.cc
#include "probes/transfer/transfer_stats.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nodeprobe::transfer {

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

double Gbps(uint64_t bytes, int64_t ns) {
  return ns > 0 ? static_cast<double>(bytes) * 8.0 / static_cast<double>(ns) : 0;
}

BandwidthFigures ComputeBandwidthFromBytes(uint64_t bytes, int64_t first_ns,
                                           int64_t last_ns) {
  BandwidthFigures f;
  const int64_t ns = last_ns - first_ns;
  if (ns <= 0) return f;
  f.seconds = static_cast<double>(ns) / 1e9;
  f.avg_gbps = Gbps(bytes, ns);
  f.peak_gbps = f.avg_gbps;
  f.avg_mibps = static_cast<double>(bytes) / 1048576.0 / f.seconds;
  return f;
}

BandwidthFigures ComputeBandwidth(uint64_t size, int64_t first_post_ns,
                                  const std::vector<int64_t>& completions_ns) {
  CompletionTally tally(first_post_ns);
  for (int64_t t : completions_ns) tally.Record(1, t);
  return tally.Figures(size);
}

void CompletionTally::Record(uint64_t completed, int64_t polled_ns) {
  if (completed == 0) return;
  const int64_t interval = polled_ns - last_;
  if (interval > 0) {
    best_per_ns_ = std::max(best_per_ns_, static_cast<double>(completed) / interval);
  }
  count_ += completed;
  last_ = std::max(last_, polled_ns);
}

BandwidthFigures CompletionTally::Figures(uint64_t size) const {
  BandwidthFigures f;
  if (count_ == 0) return f;
  f = ComputeBandwidthFromBytes(size * count_, first_post_, last_);
  if (f.seconds <= 0) return f;
  f.msg_rate_mpps = static_cast<double>(count_) / f.seconds / 1e6;
  f.peak_gbps = best_per_ns_ > 0 ? static_cast<double>(size) * 8.0 * best_per_ns_ : f.avg_gbps;
  return f;
}

v1::LatencyStats ComputeLatency(std::vector<int64_t> round_trips_ns) {
  v1::LatencyStats s;
  std::sort(round_trips_ns.begin(), round_trips_ns.end());
  // perftest drops the two largest samples when it has enough of them.
  if (round_trips_ns.size() > 2) round_trips_ns.resize(round_trips_ns.size() - 2);
  const size_t n = round_trips_ns.size();
  if (n == 0) return s;
  auto us = [](int64_t rtt_ns) { return static_cast<double>(rtt_ns) / 2.0 / 1000.0; };
  auto rank = [&](double p) {
    size_t k = static_cast<size_t>(std::ceil(p * static_cast<double>(n)));
    return round_trips_ns[std::clamp<size_t>(k, 1, n) - 1];
  };
  s.set_samples(n);
  s.set_min_us(us(round_trips_ns.front()));
  s.set_max_us(us(round_trips_ns.back()));
  s.set_median_us(us(rank(0.5)));
  s.set_p99_us(us(rank(0.99)));
  s.set_p999_us(us(rank(0.999)));
  double sum = std::accumulate(round_trips_ns.begin(), round_trips_ns.end(), 0.0);
  s.set_avg_us(sum / static_cast<double>(n) / 2.0 / 1000.0);
  return s;
}

}  // namespace nodeprobe::transfer
