// The profile's `transfer:` section: how judged transfers (two-node,
// cluster, congestion, failure; the loopback probe) are held to a bar.
// Absolute bars win over the hardware's; the fractions have defaults.
//   transfer:
//     tcp_stream_min_gbps: 90          # absolute bars per transport/op
//     rdma_write_bw_min_gbps: 360      # also rdma_read_bw_, rdma_send_bw_
//     rdma_write_lat_max_us: 5         # also tcp_rr_lat_max_us
//     min_fraction_of_line_rate: 0.90  # of the hardware's goodput, when no bar
//     min_fraction_of_peers: 0.90      # of the peers' reference of the same kind
//     noise_sigmas: 3                  # a gap must exceed this many times the noise
//     max_spread: 0.15                 # above it a run is too noisy to judge small gaps
//     below_peers: warn                # warn | fail
//     min_fraction_of_reverse: 0.80    # one direction of a rail vs the other
//     congestion_max_per_second: 1000  # pauses/CNPs/ECN marks during a transfer
//     error_counters_grew: fail        # fail | warn: errors that grew during one
#pragma once

#include <optional>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

struct TransferBars {
  static constexpr char kSection[] = "transfer";  // its top-level key
  std::optional<double> tcp_stream_min_gbps;
  std::optional<double> rdma_write_bw_min_gbps;
  std::optional<double> rdma_read_bw_min_gbps;
  std::optional<double> rdma_send_bw_min_gbps;
  std::optional<double> rdma_write_lat_max_us;
  std::optional<double> tcp_rr_lat_max_us;
  double min_fraction_of_line_rate = 0.90;  // of the hardware's goodput
  // Of the peers' reference (the median over nodes: coordinator/peer_stats.h);
  // the profile key min_fraction_of_best_pair is read as this one.
  double min_fraction_of_peers = 0.90;
  v1::Verdict below_peers = v1::WARN;
  double min_fraction_of_reverse = 0.80;  // one direction vs the other
  // A gap counts only when larger than this many times the noise (the
  // run's robust spread, or the transfer's own interval variation).
  double noise_sigmas = 3;
  // Above this relative spread a run is too noisy to judge small gaps
  // (MEASUREMENT_TOO_NOISY).
  double max_spread = 0.15;
  // Pauses/CNPs/ECN marks per second during a transfer above which it WARNs.
  std::optional<double> congestion_max_per_second;
  // Error counters (symbol errors, drops, retries) that grew during a
  // transfer: FAIL, or WARN on a fabric known to be marginal.
  v1::Verdict error_counters_grew = v1::FAIL;
};

}  // namespace nodeprobe
