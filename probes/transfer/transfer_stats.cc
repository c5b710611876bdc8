#include "probes/transfer/transfer_stats.h"

#include <time.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "platform/statistics.h"

namespace nodeprobe::transfer {

int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

int64_t UnixNsOfMonotonic(int64_t monotonic_ns) {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  const int64_t now_unix = static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
  return now_unix - (NowNs() - monotonic_ns);
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

uint32_t CqModeration(uint64_t size, uint32_t tx_depth) {
  constexpr uint32_t kDefCqMod = 100;        // DEF_CQ_MOD
  constexpr uint64_t kCqModSizeLimit = 8192;  // MSG_SIZE_CQ_MOD_LIMIT
  if (size > kCqModSizeLimit) return 1;
  return std::max<uint32_t>(1, std::min(kDefCqMod, tx_depth));
}

BandwidthFigures ComputeBandwidth(uint64_t size, const std::vector<int64_t>& posted_ns,
                                  const std::vector<int64_t>& completions_ns) {
  BandwidthRecord record(posted_ns.size());
  for (size_t i = 0; i < posted_ns.size(); ++i) record.Posted(i, posted_ns[i]);
  for (size_t i = 0; i < completions_ns.size(); ++i) record.Completed(i + 1, completions_ns[i]);
  return record.Figures(size);
}

BandwidthRecord::BandwidthRecord(size_t window) : window_(window) {
  posted_.reserve(window);
  completed_.reserve(window);
}

IntervalCounter::IntervalCounter() { deltas_.reserve(kMaxIntervals); }

void IntervalCounter::Mark(uint64_t total, int64_t ns) {
  if (!started_) {
    started_ = true;
    last_ns_ = ns;
    last_total_ = total;
    return;
  }
  if (ns - last_ns_ < kIntervalNs || deltas_.size() >= kMaxIntervals) return;
  deltas_.emplace_back(total - last_total_, ns - last_ns_);
  last_total_ = total;
  last_ns_ = ns;
}

std::vector<double> IntervalCounter::Gbps(uint64_t unit_bytes) const {
  std::vector<double> out;
  out.reserve(deltas_.size());
  for (const auto& [units, ns] : deltas_) out.push_back(transfer::Gbps(units * unit_bytes, ns));
  return out;
}

double IntervalCv(const std::vector<double>& v) {
  if (v.size() < 4) return 0;
  return stats::CoefficientOfVariation(std::vector<double>(v.begin() + 1, v.end()));
}

void AddReverseDirection(const v1::TransferDone& theirs, uint64_t size, v1::TransferResult* out) {
  const BandwidthFigures r = ComputeBandwidthFromBytes(theirs.bytes(), theirs.first_ns(), theirs.last_ns());
  out->set_bytes(out->bytes() + theirs.bytes());
  out->set_bw_avg_gbps(out->bw_avg_gbps() + r.avg_gbps);
  out->set_bw_peak_gbps(out->bw_peak_gbps() + theirs.peak_gbps());
  out->set_bw_avg_mibps(out->bw_avg_mibps() + r.avg_mibps);
  if (r.seconds > 0 && size > 0) {
    out->set_msg_rate_mpps(out->msg_rate_mpps() +
                           static_cast<double>(theirs.bytes() / size) / r.seconds / 1e6);
  }
}

void SetIntervals(const std::vector<double>& interval_gbps, v1::TransferResult* result) {
  result->clear_interval_gbps();
  for (size_t i = 0; i < interval_gbps.size() && i < kMaxIntervals; ++i) {
    result->add_interval_gbps(interval_gbps[i]);
  }
  result->set_interval_cv(IntervalCv(interval_gbps));
}

void BandwidthRecord::Posted(uint64_t index, int64_t ns) {
  if (index == 0) {
    first_post_ = last_ = ns;
    intervals_.Mark(0, ns);
  }
  if (index < window_ && index == posted_.size()) posted_.push_back(ns);
}

void BandwidthRecord::Completed(uint64_t through, int64_t ns) {
  if (through <= count_) return;  // nothing new
  count_ = through;
  last_ = std::max(last_, ns);
  intervals_.Mark(through, ns);
  // Within the window: reserved up front, so push_back never allocates.
  if (through - 1 < window_ && completed_.size() < window_) {
    completed_.emplace_back(through - 1, ns);
  }
}

BandwidthFigures BandwidthRecord::Figures(uint64_t size) const {
  BandwidthFigures f;
  if (count_ == 0) return f;
  f = ComputeBandwidthFromBytes(size * count_, first_post_, last_);
  if (f.seconds <= 0) return f;
  f.msg_rate_mpps = static_cast<double>(count_) / f.seconds / 1e6;
  // print_report_bw's double loop: for each posted message i, every
  // reported completion j >= i; the best (t_j - t_i) / (j - i + 1).
  double best = 0;  // ns per message; 0 = none found
  size_t first_j = 0;
  for (size_t i = 0; i < posted_.size(); ++i) {
    while (first_j < completed_.size() && completed_[first_j].first < i) ++first_j;
    for (size_t k = first_j; k < completed_.size(); ++k) {
      const auto& [j, t] = completed_[k];
      const double per = static_cast<double>(t - posted_[i]) / static_cast<double>(j - i + 1);
      if (per > 0 && (best == 0 || per < best)) best = per;
    }
  }
  f.peak_gbps = best > 0 ? static_cast<double>(size) * 8.0 / best : f.avg_gbps;
  f.interval_gbps = intervals_.Gbps(size);
  return f;
}

v1::LatencyStats ComputeLatency(std::vector<int64_t> round_trips_ns) {
  v1::LatencyStats s;
  std::sort(round_trips_ns.begin(), round_trips_ns.end());
  // perftest's print_report_lat: of N sorted samples it counts
  // m = N - 2 (LAT_MEASURE_TAIL) for the median and the average, and reads
  // t_max at index m and p99/p99.9 by the percentile rule over m in the
  // whole sorted array (statistics.h) -- so t_max is the second largest
  // sample, not the third. With two samples or fewer, all of them count.
  const size_t total = round_trips_ns.size();
  if (total == 0) return s;
  const size_t n = total > 2 ? total - 2 : total;
  const std::vector<double> sorted(round_trips_ns.begin(), round_trips_ns.end());
  auto us = [](double rtt_ns) { return rtt_ns / 2.0 / 1000.0; };
  const std::vector<double> counted(sorted.begin(), sorted.begin() + static_cast<long>(n));
  s.set_samples(n);
  s.set_min_us(us(sorted.front()));
  s.set_max_us(us(sorted[std::min(n, total - 1)]));
  s.set_median_us(us(stats::Median(counted)));  // get_median: two middle ones of an even count
  s.set_p99_us(us(stats::SortedPercentile(sorted, 0.99, n)));
  s.set_p999_us(us(stats::SortedPercentile(sorted, 0.999, n)));
  s.set_avg_us(us(stats::Mean(counted)));
  return s;
}

}  // namespace nodeprobe::transfer
