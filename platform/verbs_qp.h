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
  // RDMA READs the peer accepts at once (its max_dest_rd_atomic, from its
  // device's max_qp_rd_atom).
  uint32_t max_rd_atom = 0;
};

// How many RDMA READs each side keeps in flight, as perftest's out_reads:
// this end accepts its device's max_qp_rd_atom (max_dest_rd_atomic, told
// to the peer) and issues at most the smaller of its device's
// max_qp_init_rd_atom and what the peer accepts (max_rd_atomic). Values
// are clamped to the 8-bit fields.
struct ReadDepths {
  uint8_t initiator = 0;  // max_rd_atomic
  uint8_t responder = 0;  // max_dest_rd_atomic
};
ReadDepths NegotiateReadDepths(int local_init_max, int local_responder_max,
                               uint32_t peer_responder);

// What a QP is created with.
struct QpOptions {
  uint32_t tx_depth = 128;
  int gpu = -1;  // >= 0: the buffer lives on that GPU (GPUDirect RDMA)
  // Inline data to ask the QP for (perftest's latency default is 220 for
  // WRITE); the provider may grant less, or none. Host buffers only.
  uint32_t inline_bytes = 0;
  // Register with IBV_ACCESS_RELAXED_ORDERING (perftest and NCCL do for
  // bandwidth buffers), best-effort: the flag is optional for the kernel.
  bool relaxed_ordering = false;
};

// perftest's DEF_INLINE_WRITE: the inline size ib_write_lat asks for.
constexpr uint32_t kLatencyInlineBytes = 220;

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
// `traffic_class` in the GRH; InfiniBand by LID. `reads` from
// NegotiateReadDepths; `service_level` in the address vector (NCCL_IB_SL).
QpAttrs RtrAttrs(const RemoteQp& remote, ibv_mtu path_mtu, uint8_t port, bool use_grh,
                 uint8_t gid_index, uint8_t traffic_class, ReadDepths reads,
                 uint8_t service_level = 0);
QpAttrs RtsAttrs(uint32_t local_psn, ReadDepths reads);

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
  static absl::StatusOr<std::unique_ptr<VerbsQp>> Open(const std::string& device,
                                                       uint8_t port, size_t buffer_bytes,
                                                       const QpOptions& options);
  // Resources on the device an rdma_cm id resolved to, with the QP created
  // through rdma_cm (which then drives its state transitions). The id stays
  // owned by the caller and must outlive this object.
  static absl::StatusOr<std::unique_ptr<VerbsQp>> OnCmId(rdma_cm_id* id, size_t buffer_bytes,
                                                         const QpOptions& options);
  ~VerbsQp();

  uint32_t qpn() const;
  uint32_t lkey() const;
  uint32_t rkey() const;
  uint64_t addr() const;
  uint16_t lid() const { return lid_; }
  std::string device_name() const;
  uint8_t port() const { return port_; }
  uint32_t active_mtu() const { return active_mtu_; }
  // The device's read limits (ibv_query_device), for NegotiateReadDepths.
  int max_qp_rd_atom() const { return max_qp_rd_atom_; }
  int max_qp_init_rd_atom() const { return max_qp_init_rd_atom_; }
  // Inline bytes the QP was granted (0: none); sends of at most this size
  // go inline (IBV_SEND_INLINE), the CPU copying them into the request.
  uint32_t max_inline() const { return max_inline_; }
  bool relaxed_ordering() const { return relaxed_ordering_; }
  absl::StatusOr<std::vector<uint8_t>> Gid(uint8_t index) const;

  // INIT -> RTR -> RTS toward `remote`, read depths negotiated with what
  // it accepts.
  absl::Status Connect(const RemoteQp& remote, bool use_grh, uint8_t gid_index,
                       uint32_t local_psn, uint8_t traffic_class = 0,
                       uint8_t service_level = 0);
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
  // Polls for one completion (the latency loop's send completion): true
  // when one was there; error on a bad status. Nothing is allocated.
  absl::StatusOr<bool> PollOne();

 private:
  VerbsQp() = default;
  absl::Status AllocateBuffers(size_t buffer_bytes, const QpOptions& options);
  void QueryDevice();
  // ibv_reg_mr on a host-visible address, with relaxed ordering through
  // ibv_reg_mr_iova2 when asked for and available (else without).
  ibv_mr* RegisterHost(void* addr, size_t length, bool relaxed);
  // Creates the QP (through rdma_cm when cm_id_ is set) with the inline
  // size asked for, or none if the provider refuses it.
  absl::Status CreateQp(const QpOptions& options);

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
  int max_qp_rd_atom_ = 1;
  int max_qp_init_rd_atom_ = 1;
  uint32_t max_inline_ = 0;
  bool relaxed_ordering_ = false;
};

}  // namespace nodeprobe::platform
