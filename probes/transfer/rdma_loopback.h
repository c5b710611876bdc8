// File: rdma_loopback.h
// A transfer between two QPs on the same HCA port (perftest with server and
// client on one host): the port's own data path, and with a GPU buffer
// GPUDirect RDMA, checked without a peer. The loops are the two-node
// transfer's (rdma_loops); the QPs are connected to each other directly.
#pragma once

#include <cstdint>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/transfer.pb.h"
#include "probes/transfer/rdma_transport.h"

namespace nodeprobe::transfer {

struct LoopbackPlan {
  double bw_seconds = 0.5;          // write_bw for this long
  uint64_t bw_size = 65536;         // ib_write_bw's default message size
  uint64_t lat_iterations = 1000;   // write_lat round trips (after warm-up)
  uint64_t lat_warmup = 100;
  uint64_t lat_size = 2;            // ib_write_lat's default
  bool latency = true;              // false: bandwidth only (the GPU run)
  // With local.gpu >= 0: false, the NIC reads the GPU buffer (the sending
  // QP's); true, it writes into it (the receiving QP's).
  bool gpu_receives = false;
  absl::Duration idle = absl::Seconds(2);
};

struct LoopbackOutcome {
  v1::TransferReport write_bw;   // one row
  v1::TransferReport write_lat;  // one row, when plan.latency
  absl::Status status;           // the first failure; figures so far kept
};

// `local` names the device, port and GID (RoCE) both QPs use; local.gpu >= 0
// puts the sending buffer (or, with plan.gpu_receives, the receiving one)
// on that GPU.
LoopbackOutcome RunRdmaLoopback(const RdmaLocal& local, const LoopbackPlan& plan);

// The GID a loopback uses: the two QPs sit on one port, so any valid entry
// turns around inside the HCA, link-local included (unlike a transfer to a
// peer, which needs a routable one). RoCE: a RoCE v2 entry (one with an
// IPv4 address first), else any entry; InfiniBand: LID addressing.
absl::StatusOr<GidChoice> SelectLoopbackGid(const std::vector<GidCandidate>& table,
                                            const std::string& link_layer);

}  // namespace nodeprobe::transfer
