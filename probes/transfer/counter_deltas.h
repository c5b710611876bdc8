// File: counter_deltas.h
// What the fabric did while a transfer ran, at both ends: the RDMA port's
// counters and hw_counters read before and after each message size (the
// client reads its own; the server reads its own and sends them in its
// Done), their growth reported per side and port with the rate per second,
// and judged:
//   RDMA_ERROR_COUNTERS_GREW  an error counter (symbol_error, link_downed,
//                             port_rcv_errors, out_of_sequence, ...) grew:
//                             FAIL (a profile exception can accept it)
//   RDMA_CONGESTION_SIGNALS   pauses/CNPs/ECN marks (port_xmit_wait,
//                             np_cnp_sent, rp_cnp_handled,
//                             np_ecn_marked_roce_packets) per second above
//                             transfer.congestion_max_per_second: WARN;
//                             without that key they are evidence only
//   ROCE_PAUSE_STORM          a RoCE port's netdev (live host: ethtool
//                             counters ride with the port's) had its
//                             pause-storm watchdog fire: FAIL; its pauses
//                             and discards (rx_discards_phy,
//                             rx_out_of_buffer) are congestion signals
// and, around TCP transfers, the egress interface's statistics and driver
// (ethtool) counters:
//   NETDEV_ERRORS_GREW        rx/tx errors, CRC/frame/FIFO/carrier errors,
//                             missed packets grew: FAIL
//   NETDEV_PAUSE_FRAMES       pause frames (per priority where the driver
//                             counts them) per second above
//                             transfer.congestion_max_per_second: WARN
// A counter a device does not have is absent from the result, never zero.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/nccl.pb.h"
#include "nodeprobe/v1/result.pb.h"
#include "platform/file_tree.h"
#include "probes/framework/profile.h"

namespace nodeprobe::transfer {

struct PortCounters {
  std::string port;  // "mlx5_0:1", or a netdev
  std::map<std::string, uint64_t> values;  // "symbol_error", "hw:np_cnp_sent", "ethtool:rx_pause"
};

absl::StatusOr<PortCounters> SnapshotPortCounters(const platform::FileTree& sys,
                                                  const std::string& device, uint32_t port);

// statistics/* of class/net/IF under `sys` plus the driver's ethtool
// counters (prefixed "ethtool:"; read in this network namespace).
PortCounters SnapshotNetdevCounters(const platform::FileTree& sys, const std::string& ifname);

// One end's counters as a transfer reads them around each message size:
// an RDMA port's, or a netdev's for TCP.
struct CounterSource {
  std::function<absl::StatusOr<PortCounters>()> read;  // empty: none at this end
  bool rdma = false;
  std::string why_none;  // when `read` is empty
};
CounterSource RdmaCounterSource(const std::string& sys_root, const std::string& device,
                                uint32_t port);
CounterSource NetdevCounterSource(const std::string& sys_root, const std::string& ifname);

// A source read once now; Finish() reads it again and gives the growth of
// the error and congestion counters in between, named for `side`.
class CounterWindow {
 public:
  CounterWindow(const CounterSource& source, std::string side);
  // The deltas, or none with `*why` set when either read failed.
  std::vector<v1::CounterDelta> Finish(std::string* why) const;

 private:
  const CounterSource& source_;
  std::string side_;
  absl::StatusOr<PortCounters> before_;
  absl::Time started_;
};

// The counters among `after` that mean an error or congestion, as deltas
// (a counter only one read has, or that went down, is left out: absent,
// never zero).
std::vector<v1::CounterDelta> ClassifiedDeltas(const PortCounters& before,
                                               const PortCounters& after, double seconds,
                                               bool rdma, const std::string& side);

// The server's counters from its Done into a row (or why it sent none).
void AddServerCounters(const v1::TransferDone& done, v1::TransferResult* row);

// Judges every row's counters from both ends of a transfer, summed per
// side, port and counter; findings name the side and its role (the
// receiver of write_bw is the server):
//   RDMA_ERROR_COUNTERS_GREW / NETDEV_ERRORS_GREW: FAIL (profile:
//     transfer.error_counters_grew)
//   RDMA_CONGESTION_SIGNALS / NETDEV_PAUSE_FRAMES: WARN above
//     transfer.congestion_max_per_second, else evidence
void JudgeTransferCounters(const v1::TransferReport& report, bool bidirectional,
                           const Profile& profile, v1::ProbeResult* result);

// The RDMA ports' counters each rank's agent read around it, judged as a
// transfer's are with the node as the side. Ranks on one node read the
// same ports over nearly the same span: per node, port and counter the
// largest growth is taken, never the sum.
void JudgeCollectiveCounters(const v1::CollectiveReport& report, const Profile& profile,
                             v1::ProbeResult* result);

// One read pair of one RDMA port, judged alone (the loopback probe).
void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result);

}  // namespace nodeprobe::transfer
