// File: rdma_transport.h
// The RDMA side of the transfer driver: RC queue pairs connected by an
// out-of-band exchange of {LID, GID, QPN, PSN, rkey, addr, MTU} on the
// control connection (ib_write_bw's method; works without IP on the RDMA
// port), RDMA WRITE/READ bandwidth with tx_depth outstanding requests, and
// figures from perftest's formulas. Needs a device: on machines without one
// every entry point returns FAILED_PRECONDITION ("no RDMA device").
#pragma once

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/transfer.pb.h"
#include "platform/file_tree.h"
#include "platform/route.h"
#include "probes/transfer/gid_select.h"
#include "probes/transfer/transfer_engine.h"

namespace nodeprobe::transfer {

// RDMA latency rows run a count of round trips, never a duration: a request
// "by duration" (iterations 0, as the stages send) runs ib_write_lat's
// default 1000, so that it measures something (it once posted once and
// reported 0 us). Both ends derive the count from the same request.
inline constexpr uint64_t kPerftestLatencyIterations = 1000;
uint64_t RdmaLatencyIterations(const v1::TransferRequest& req);

struct RdmaLocal {
  std::string device;
  uint8_t port = 1;
  GidChoice gid;
  bool use_grh = false;  // RoCE: address by GID; InfiniBand: by LID
  int gpu = -1;          // >= 0: this end's buffer is on that GPU
};

// Picks the device, port and GID that reach the peer through `egress`:
// the ACTIVE port behind the egress interface (RoCE: a GID on it;
// InfiniBand: its IPoIB interface), within `device` when given; a named
// device no route leads through is used as named (out-of-band exchange).
// Never a DOWN port, never "the first device" by name.
// `port` (0 = any) narrows a named device to one port.
absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::FileTree& sys,
                                          const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index,
                                          uint32_t port = 0);
// The same on this host's /sys.
absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index,
                                          uint32_t port = 0);

// Client: one message size of write_bw or read_bw.
RowOutcome RunRdmaRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                      const Timeouts& timeouts, const RdmaLocal& local);

// Server: the passive end of an RDMA request that arrived on `control`;
// its port's counters (read under `sys_root`) go back in its Done.
void ServeRdma(int control, const v1::TransferRequest& req, const Timeouts& timeouts,
               const RdmaServeChoice& choice, const std::string& sys_root = "/sys");

}  // namespace nodeprobe::transfer
