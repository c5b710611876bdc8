// File: transfer_runner.h
// Runs a transfer over a size sweep and turns it into a ProbeResult named
// "transfer": a TransferReport row per size, and for a run that failed a
// finding that says which side and what happened:
//   TRANSFER_CONNECT_FAILED  the client could not reach the server
//   TRANSFER_PEER_LOST       the peer closed or reset the connection mid-run
//   TRANSFER_TIMEOUT         nothing moved within the idle deadline
//   TRANSFER_REFUSED         the server would not run the request
// Rows measured before a failure are kept.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/result.pb.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/rdma_transport.h"
#include "probes/transfer/transfer_engine.h"

namespace nodeprobe::transfer {

struct TransferPlan {
  platform::HostPort peer;
  v1::TransferRequest request;  // size is set per row
  std::vector<uint64_t> sizes;
  Timeouts timeouts;
  RdmaLocal rdma;  // device, port and GID when request.transport() is RDMA
  // This end's counters, read around each row (the server reads its own).
  CounterSource counters;
};

v1::ProbeResult RunTransfer(const TransferPlan& plan);

// The default message size of an op: perftest's for RDMA (64 KiB, latency
// 2 B). TCP has no messages on the wire, so the write size is the engine's
// choice, not the link's, and it should leave the link as the limit. Measured
// on this project's 2-core VM (NOTES.md, session 8; medians of 5 x 3 s):
// one stream reads most at 1 MiB writes (loopback 34 Gb/s, veth 25, iperf3's
// 128 KiB default 21 and 17); several streams share one sending thread
// round-robin and read most at 512 KiB each (loopback 34, veth 34-40; at
// 1 MiB each, 4 streams over veth fall to 25, and iperf3 -l 1M to 17).
uint64_t DefaultSize(v1::Transport transport, v1::TransferOp op, uint32_t streams = 1);

// perftest's -a sweep: 2 B .. 8 MiB, doubling.
std::vector<uint64_t> AllSizes();
// "65536", "4K,64K,1M" (K/M/G are powers of 1024), each 1 B .. 1 GiB.
inline constexpr uint64_t kMaxMessageSize = 1ull << 30;
absl::StatusOr<std::vector<uint64_t>> ParseSizeList(const std::string& text);

// "stream_bw" -> STREAM_BW; OP_UNSPECIFIED for an unknown name.
v1::TransferOp OpFromName(const std::string& name);
std::string OpName(v1::TransferOp op);
bool IsLatencyOp(v1::TransferOp op);

}  // namespace nodeprobe::transfer
