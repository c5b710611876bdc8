// File: counter_deltas.h
// What the fabric did while a transfer ran: the RDMA port's counters and
// hw_counters read before and after, their growth reported per port with
// the rate per second, and judged:
//   RDMA_ERROR_COUNTERS_GREW  an error counter (symbol_error, link_downed,
//                             port_rcv_errors, out_of_sequence, ...) grew:
//                             FAIL (a profile exception can accept it)
//   RDMA_CONGESTION_SIGNALS   pauses/CNPs/ECN marks (port_xmit_wait,
//                             np_cnp_sent, rp_cnp_handled,
//                             np_ecn_marked_roce_packets) per second above
//                             transfer.congestion_max_per_second: WARN;
//                             without that key they are evidence only
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
#include <map>
#include <string>

#include "absl/status/statusor.h"
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

void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result);

// statistics/* of class/net/IF under `sys` plus the driver's ethtool
// counters (prefixed "ethtool:"; read in this network namespace).
PortCounters SnapshotNetdevCounters(const platform::FileTree& sys, const std::string& ifname);

void JudgeNetdevDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                       const Profile& profile, v1::ProbeResult* result);

}  // namespace nodeprobe::transfer
