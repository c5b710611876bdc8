// File: transfer_stats.h
// perftest's definitions, so nodeprobe's numbers compare 1:1 with
// ib_write_bw / ib_write_lat (read from perftest's src/perftest_parameters.c
// print_report_bw and src/perftest_resources.c run_iter_bw /
// run_iter_lat_write):
//
//   BW average = size x N / (t_completed[N-1] - t_posted[0])
//   BW peak    = size / min over (i, j >= i) of
//                  (t_completed[j] - t_posted[i]) / (j - i + 1)
//                where i runs over every posted message and j over the
//                messages whose completion was reported (every cq_mod-th
//                one under CQ moderation, and the last), each completion
//                timestamped when its poll returned it, so a batched poll
//                gives each of its completions the poll's time, as
//                perftest's per-wc get_cycles() does.
//                perftest computes the peak over an iterations run (5000
//                messages by default, none above 20000); nodeprobe runs by
//                duration and computes it over the first kPeakWindow
//                messages, in memory fixed before the run.
//   MsgRate    = N / (t_completed[N-1] - t_posted[0])
//   Gb/s       = bytes x 8 / 10^9 per second; MiB/s = bytes / 2^20 per second
//   latency    = half of each ping-pong round trip, a round trip being the
//                time between two consecutive posts of the initiator
//                (perftest's tposted[i+1] - tposted[i]); perftest drops
//                the 2 largest samples and so does nodeprobe, then reports
//                min, median, average, p99, p99.9 and max of the rest.
//                As perftest's print_report_lat: the median of an even
//                count is the mean of the two middle samples, p99 is the
//                sorted sample at 0-based index ceil(0.99 n) -- the one
//                percentile rule of platform/statistics.h, which is
//                perftest's.
//
// perftest's duration mode (-D) reports no peak and averages over a window
// that skips a 2 s margin at each end; nodeprobe uses the iterations-mode
// definitions above over its whole run (the ramp is microseconds of a
// multi-second run).
//
// Times are nanoseconds from a monotonic clock (CLOCK_MONOTONIC_RAW).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "nodeprobe/v1/transfer.pb.h"

namespace nodeprobe::transfer {

// Monotonic nanoseconds (CLOCK_MONOTONIC_RAW): not slewed by NTP.
int64_t NowNs();
// The wall-clock (CLOCK_REALTIME) time of a NowNs() reading, for lining up
// runs of several hosts (as good as their clocks' sync).
int64_t UnixNsOfMonotonic(int64_t monotonic_ns);

struct BandwidthFigures {
  double seconds = 0;
  double avg_gbps = 0;
  double peak_gbps = 0;
  double avg_mibps = 0;
  double msg_rate_mpps = 0;
  std::vector<double> interval_gbps;  // per kIntervalNs of the run
};

// The spread of a run is judged from its rate in intervals this long, at
// most kMaxIntervals of them (a minute; later ones are not kept).
constexpr int64_t kIntervalNs = 100'000'000;
constexpr size_t kMaxIntervals = 600;

// Counts per interval, in memory fixed at construction (the RDMA loop
// calls it on every completion and must not allocate).
class IntervalCounter {
 public:
  IntervalCounter();
  // `total` units (messages, bytes) done as of `ns`.
  void Mark(uint64_t total, int64_t ns);
  // Each complete interval's rate, `unit_bytes` per unit.
  std::vector<double> Gbps(uint64_t unit_bytes) const;

 private:
  std::vector<std::pair<uint64_t, int64_t>> deltas_;  // (units, ns) per interval
  uint64_t last_total_ = 0;
  int64_t last_ns_ = 0;
  bool started_ = false;
};

// The coefficient of variation of a run's per-interval rates, the first
// interval (slow start, queues filling) left out; 0 when fewer than three
// remain (too short to say).
double IntervalCv(const std::vector<double>& interval_gbps);

// Bidirectional runs, like perftest -b: the reverse direction (what the
// server measured, `theirs`) added to the result: bytes, average, peak,
// MiB/s and the message rate (perftest sums msgRate_avg too).
void AddReverseDirection(const v1::TransferDone& theirs, uint64_t size, v1::TransferResult* out);

// Sets a result's interval figures and their CV.
void SetIntervals(const std::vector<double>& interval_gbps, v1::TransferResult* result);

// Every message signaled: message i posted at posted_ns[i] and completed
// at completions_ns[i] (one entry each, in order). Empty or non-increasing
// input gives zeros.
BandwidthFigures ComputeBandwidth(uint64_t size, const std::vector<int64_t>& posted_ns,
                                  const std::vector<int64_t>& completions_ns);

// perftest's CQ moderation (perftest_parameters.c): one signaled request
// in DEF_CQ_MOD = 100, at most tx_depth, and every request signaled
// (DISABLED_CQ_MOD_VALUE) for messages above MSG_SIZE_CQ_MOD_LIMIT = 8 KiB.
uint32_t CqModeration(uint64_t size, uint32_t tx_depth);

// The messages whose post times the peak is computed over (ib_write_bw's
// default iterations).
constexpr size_t kPeakWindow = 5000;

// A bandwidth run's timestamps, as perftest keeps them, in memory fixed at
// construction: post times of the first `window` messages and the
// completions reported among them; beyond that only the count and the last
// completion time (for the average).
class BandwidthRecord {
 public:
  explicit BandwidthRecord(size_t window = kPeakWindow);
  // Whether message `index`'s post time is wanted (call the clock only then).
  bool TimesPost(uint64_t index) const { return index < window_; }
  // Message `index` was posted at `ns` (the first post starts the run).
  void Posted(uint64_t index, int64_t ns);
  // Messages 0 .. through-1 are complete, as of `ns` (a signaled
  // completion for message through-1, RC completing in order).
  void Completed(uint64_t through, int64_t ns);
  uint64_t count() const { return count_; }
  int64_t first_post_ns() const { return first_post_; }
  int64_t last_ns() const { return last_; }
  BandwidthFigures Figures(uint64_t size) const;

 private:
  size_t window_;
  std::vector<int64_t> posted_;                          // t_posted[i], i < window
  std::vector<std::pair<uint64_t, int64_t>> completed_;  // (j, t_completed[j]), j < window
  int64_t first_post_ = 0;
  int64_t last_ = 0;
  uint64_t count_ = 0;
  IntervalCounter intervals_;
};

// From bytes moved over an interval (streams with no per-message
// completion, e.g. TCP): average only.
BandwidthFigures ComputeBandwidthFromBytes(uint64_t bytes, int64_t first_ns,
                                           int64_t last_ns);

// Round-trip times in nanoseconds -> one-way latency statistics.
// perftest's round trips: the gaps between consecutive post times.
v1::LatencyStats ComputeLatency(std::vector<int64_t> round_trips_ns);

// Gb/s for `bytes` over `ns`.
double Gbps(uint64_t bytes, int64_t ns);

}  // namespace nodeprobe::transfer
