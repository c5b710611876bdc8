// File: transfer_stats.h
// perftest's definitions, so nodeprobe's numbers compare 1:1 with
// ib_write_bw / ib_write_lat:
//
//   BW average = size × N / (t_last_completion − t_first_post)
//   BW peak    = size / (best single completion interval), where interval i
//                is t_completion[i] − t_completion[i−1] and interval 0 is
//                t_completion[0] − t_post[0]
//   MsgRate    = N / (t_last_completion − t_first_post)
//   Gb/s       = bytes × 8 / 10^9 per second; MiB/s = bytes / 2^20 per second
//   latency    = half of each ping-pong round trip; perftest drops the 2
//                largest samples (outliers from the first exchange and
//                scheduling) and so does nodeprobe, then reports min,
//                median, average, p99, p99.9 and max of the rest.
//                Percentiles are nearest-rank: the ceil(p·n)-th smallest.
//
// Times are nanoseconds from a monotonic clock (CLOCK_MONOTONIC_RAW).
#pragma once

#include <cstdint>
#include <vector>

#include "nodeprobe/v1/transfer.pb.h"

namespace nodeprobe::transfer {

// Monotonic nanoseconds (CLOCK_MONOTONIC_RAW): not slewed by NTP.
int64_t NowNs();

struct BandwidthFigures {
  double seconds = 0;
  double avg_gbps = 0;
  double peak_gbps = 0;
  double avg_mibps = 0;
  double msg_rate_mpps = 0;
};

// `completions_ns` in completion order; `first_post_ns` when the first
// message was posted. Empty or non-increasing input gives zeros.
BandwidthFigures ComputeBandwidth(uint64_t size, int64_t first_post_ns,
                                  const std::vector<int64_t>& completions_ns);

// Completions as they are polled, in constant memory at any duration. A
// poll that returns k completions (a batch, or one signaled completion
// standing for k messages under selective signaling) counts k messages in
// the interval since the previous poll that returned any (the first
// interval starts at the first post). So
//   average = size x N / (t_last - t_first_post)       as perftest
//   peak    = size x max over polls of k / interval    = size / (best
//             interval) when every poll returns one completion, as perftest
class CompletionTally {
 public:
  explicit CompletionTally(int64_t first_post_ns) : first_post_(first_post_ns), last_(first_post_ns) {}
  void Record(uint64_t completed, int64_t polled_ns);
  uint64_t count() const { return count_; }
  int64_t first_post_ns() const { return first_post_; }
  int64_t last_ns() const { return last_; }
  BandwidthFigures Figures(uint64_t size) const;

 private:
  int64_t first_post_;
  int64_t last_;
  uint64_t count_ = 0;
  double best_per_ns_ = 0;  // messages per nanosecond, best interval
};

// From bytes moved over an interval (streams with no per-message
// completion, e.g. TCP): average only.
BandwidthFigures ComputeBandwidthFromBytes(uint64_t bytes, int64_t first_ns,
                                           int64_t last_ns);

// Round-trip times in nanoseconds -> one-way latency statistics.
v1::LatencyStats ComputeLatency(std::vector<int64_t> round_trips_ns);

// Gb/s for `bytes` over `ns`.
double Gbps(uint64_t bytes, int64_t ns);

}  // namespace nodeprobe::transfer
