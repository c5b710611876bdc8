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
  absl::Duration idle = absl::Seconds(2);
};

struct LoopbackOutcome {
  v1::TransferReport write_bw;   // one row
  v1::TransferReport write_lat;  // one row, when plan.latency
  absl::Status status;           // the first failure; figures so far kept
};

// `local` names the device, port and GID (RoCE) both QPs use; local.gpu >= 0
// puts the sending buffer on that GPU.
LoopbackOutcome RunRdmaLoopback(const RdmaLocal& local, const LoopbackPlan& plan);

}  // namespace nodeprobe::transfer
