// File: verbs_qp.h
// An RC queue pair for ib_write_bw-style transfers: device, protection
// domain, completion queue, QP and a registered buffer, and the attribute
// sets of the INIT -> RTR -> RTS transitions. The attribute builders are
// pure functions (unit-tested without a device); VerbsQp needs hardware and
// runs in hwtests/.
#pragma once

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "platform/gpu_memory.h"

namespace nodeprobe::platform {

// What the peer told us over the out-of-band exchange.
struct RemoteQp {
  uint32_t lid = 0;
  uint8_t gid[16] = {};
  uint32_t qpn = 0;
  uint32_t psn = 0;
  uint32_t rkey = 0;
  uint64_t addr = 0;
  uint32_t active_mtu = 0;  // bytes
};

struct QpAttrs {
  ibv_qp_attr attr{};
  int mask = 0;
};

// ibv_mtu for a byte count (256..4096); IBV_MTU_1024 for anything else.
ibv_mtu MtuFromBytes(uint32_t bytes);
// The path MTU: the smaller of the two ports' active MTUs.
ibv_mtu PathMtu(uint32_t local_bytes, uint32_t remote_bytes);

// An RC QP with one CQ for both directions, tx_depth requests each way.
ibv_qp_init_attr RcInitAttr(ibv_cq* cq, uint32_t tx_depth);
QpAttrs InitAttrs(uint8_t port, int access_flags);
// RoCE (use_grh) addresses the peer by GID through `gid_index`, with
// `traffic_class` in the GRH; InfiniBand by LID.
QpAttrs RtrAttrs(const RemoteQp& remote, ibv_mtu path_mtu, uint8_t port,
                 bool use_grh, uint8_t gid_index, uint8_t traffic_class = 0);
QpAttrs RtsAttrs(uint32_t local_psn);

// Device resources for one RC connection. Destroyed in reverse order.
// Receive queue depth for a send queue of `tx_depth`: at least 4x (perftest
// posts 512 receives against 128 sends), so a SEND never meets an empty
// receive queue (each RNR NAK stalls the sender ~0.64 ms); capped below
// every HCA's max_qp_wr.
inline uint32_t RecvDepth(uint32_t tx_depth) {
  const uint32_t want = tx_depth > 4096 ? 16384 : 4 * tx_depth;
  return want < 512 ? 512 : (want > 16384 ? 16384 : want);
}

class VerbsQp {
 public:
  // gpu >= 0: the buffer lives on that GPU (GPUDirect RDMA).
  static absl::StatusOr<std::unique_ptr<VerbsQp>> Open(const std::string& device,
                                                       uint8_t port, size_t buffer_bytes,
                                                       uint32_t tx_depth, int gpu = -1);
  // Resources on the device an rdma_cm id resolved to, with the QP created
  // through rdma_cm (which then drives its state transitions). The id stays
  // owned by the caller and must outlive this object.
  static absl::StatusOr<std::unique_ptr<VerbsQp>> OnCmId(rdma_cm_id* id, size_t buffer_bytes,
                                                         uint32_t tx_depth, int gpu = -1);
  ~VerbsQp();

  uint32_t qpn() const;
  uint32_t lkey() const;
  uint32_t rkey() const;
  uint64_t addr() const;
  uint16_t lid() const { return lid_; }
  uint32_t active_mtu() const { return active_mtu_; }
  absl::StatusOr<std::vector<uint8_t>> Gid(uint8_t index) const;

  absl::Status Connect(const RemoteQp& remote, bool use_grh, uint8_t gid_index,
                       uint32_t local_psn, uint8_t traffic_class = 0);
  // Posts one work request of `size` bytes from the start of the local
  // buffer: IBV_WR_RDMA_WRITE / IBV_WR_RDMA_READ to the peer's buffer, or
  // IBV_WR_SEND; `signaled` asks for a completion (the QP is created with
  // sq_sig_all = 0, so unsignaled requests complete silently, in order).
  absl::Status Post(ibv_wr_opcode opcode, const RemoteQp& remote, size_t size, uint64_t wr_id,
                    bool signaled = true);
  // Posts a receive for a SEND of up to `size` bytes.
  absl::Status PostRecv(size_t size, uint64_t wr_id);
  // Posts one receive per id in one call (a chained list, at most kMaxPoll).
  absl::Status PostRecvs(size_t size, const std::vector<uint64_t>& wr_ids);
  // The registered host buffer (ping-pong latency polls its last byte);
  // nullptr when the buffer is GPU memory.
  volatile uint8_t* buffer() const { return static_cast<volatile uint8_t*>(buf_); }
  // How the buffer was registered: "host", "gpu dma-buf" or "gpu peermem".
  const std::string& memory() const { return memory_; }
  size_t buffer_size() const { return buf_len_; }
  // Polls up to `max` (at most kMaxPoll) completions into a buffer the QP
  // owns (nothing allocated per poll); error on a completion with bad status.
  static constexpr int kMaxPoll = 32;
  absl::StatusOr<int> Poll(int max, std::vector<uint64_t>* wr_ids);

 private:
  VerbsQp() = default;
  absl::Status AllocateBuffers(size_t buffer_bytes, uint32_t tx_depth, int gpu);

  ibv_context* ctx_ = nullptr;
  rdma_cm_id* cm_id_ = nullptr;  // set when rdma_cm owns the QP and context
  ibv_pd* pd_ = nullptr;
  ibv_cq* cq_ = nullptr;
  ibv_qp* qp_ = nullptr;
  ibv_mr* mr_ = nullptr;
  ibv_wc wc_[kMaxPoll];
  void* buf_ = nullptr;
  size_t buf_len_ = 0;
  std::unique_ptr<GpuMemory> gpu_;
  uint64_t mr_addr_ = 0;  // the address remote peers and SGEs use
  std::string memory_ = "host";
  uint8_t port_ = 1;
  uint16_t lid_ = 0;
  uint32_t active_mtu_ = 0;
};

}  // namespace nodeprobe::platform
