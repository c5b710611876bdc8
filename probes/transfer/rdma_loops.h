// File: rdma_loops.h
// The RDMA data loops, as perftest runs them, shared by the two-node
// transfer (rdma_transport) and the single-node loopback (rdma_loopback):
// they take connected QPs and know nothing of how they were connected.
#pragma once

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "platform/verbs_qp.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {

// The peer's receive half of a latency buffer (the second `size` bytes).
platform::RemoteQp SecondHalf(platform::RemoteQp r, size_t size);

// Waits, spinning, for the send completion of the write just posted;
// DEADLINE_EXCEEDED after `idle` without one.
absl::Status AwaitSendCompletion(platform::VerbsQp& qp, absl::Duration idle);

// ib_write_lat's loop (perftest's run_iter_lat_write): each side waits for
// the peer's tag n in the last byte of its receive half (the initiator
// skips the first wait), writes its own tag into the peer's, signaled and
// inline when the QP allows, and waits for that write's completion. Waits
// are bare spins (the clock is read once every 65536 spins, for `idle`).
// The initiator stamps each post; a round trip is the gap between two
// consecutive posts (perftest's tposted[i+1] - tposted[i]), so `count`
// posts give count-1 round trips, of which the first `warmup` are
// dropped; `rtts` is reserved before the loop (nullptr on the responder).
absl::Status PingPong(platform::VerbsQp& qp, const platform::RemoteQp& remote, size_t size,
                      uint64_t count, bool initiator, absl::Duration idle,
                      std::vector<int64_t>* rtts, uint64_t warmup);

// ib_write_bw's loop (and read/send): keep tx_depth requests outstanding
// for `duration_s`. Under perftest's CQ moderation (CqModeration) only
// every cq_mod-th request asks for a completion, plus a signaled tail: RC
// completes in order, so a signaled completion with wr_id i says requests
// 0..i are done, and a full window always holds a signaled request
// (cq_mod <= tx_depth), so the loop never waits on silence. Post times are
// taken for the first kPeakWindow requests only; nothing is allocated in
// the loop (BandwidthRecord reserves its memory up front).
struct BwOutcome {
  BandwidthRecord record;
  absl::Status status;
};
void BwLoop(platform::VerbsQp& qp, const platform::RemoteQp& remote, ibv_wr_opcode opcode,
            size_t size, uint32_t tx_depth, double duration_s, absl::Duration idle,
            BwOutcome* out);

}  // namespace nodeprobe::transfer
