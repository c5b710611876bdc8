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
  std::string port;  // "mlx5_0:1"
  std::map<std::string, uint64_t> values;  // "symbol_error", "hw:np_cnp_sent"
};

absl::StatusOr<PortCounters> SnapshotPortCounters(const platform::FileTree& sys,
                                                  const std::string& device, uint32_t port);

void JudgeCounterDeltas(const PortCounters& before, const PortCounters& after, double seconds,
                        const Profile& profile, v1::ProbeResult* result);

}  // namespace nodeprobe::transfer
