#include "platform/verbs_qp.h"

#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "platform/verbs_port.h"

namespace nodeprobe::platform {

ibv_mtu MtuFromBytes(uint32_t bytes) {
  switch (bytes) {
    case 256: return IBV_MTU_256;
    case 512: return IBV_MTU_512;
    case 2048: return IBV_MTU_2048;
    case 4096: return IBV_MTU_4096;
    default: return IBV_MTU_1024;
  }
}

ibv_mtu PathMtu(uint32_t local_bytes, uint32_t remote_bytes) {
  return MtuFromBytes(std::min(local_bytes, remote_bytes));
}

ibv_qp_init_attr RcInitAttr(ibv_cq* cq, uint32_t tx_depth) {
  ibv_qp_init_attr init{};
  init.send_cq = cq;
  init.recv_cq = cq;
  init.qp_type = IBV_QPT_RC;
  init.sq_sig_all = 0;  // completions only for requests posted signaled
  init.cap.max_send_wr = tx_depth;
  init.cap.max_recv_wr = RecvDepth(tx_depth);
  init.cap.max_send_sge = 1;
  init.cap.max_recv_sge = 1;
  return init;
}

QpAttrs InitAttrs(uint8_t port, int access_flags) {
  QpAttrs a;
  a.attr.qp_state = IBV_QPS_INIT;
  a.attr.pkey_index = 0;
  a.attr.port_num = port;
  a.attr.qp_access_flags = access_flags;
  a.mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
  return a;
}

ReadDepths NegotiateReadDepths(int local_init_max, int local_responder_max,
                               uint32_t peer_responder) {
  auto byte = [](int64_t v) { return static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255)); };
  ReadDepths d;
  d.responder = byte(local_responder_max);
  d.initiator = byte(std::min<int64_t>(local_init_max, peer_responder));
  return d;
}

QpAttrs RtrAttrs(const RemoteQp& remote, ibv_mtu path_mtu, uint8_t port, bool use_grh,
                 uint8_t gid_index, uint8_t traffic_class, ReadDepths reads,
                 uint8_t service_level) {
  QpAttrs a;
  a.attr.qp_state = IBV_QPS_RTR;
  a.attr.path_mtu = path_mtu;
  a.attr.dest_qp_num = remote.qpn;
  a.attr.rq_psn = remote.psn;
  a.attr.max_dest_rd_atomic = reads.responder;  // outstanding RDMA READs we accept
  a.attr.min_rnr_timer = 12;       // 0.64 ms, perftest's value
  a.attr.ah_attr.port_num = port;
  a.attr.ah_attr.sl = service_level & 0xf;
  if (use_grh) {
    a.attr.ah_attr.is_global = 1;
    memcpy(a.attr.ah_attr.grh.dgid.raw, remote.gid, 16);
    a.attr.ah_attr.grh.sgid_index = gid_index;
    a.attr.ah_attr.grh.hop_limit = 64;  // routed RoCE v2 needs > 1
    a.attr.ah_attr.grh.traffic_class = traffic_class;
  } else {
    a.attr.ah_attr.dlid = static_cast<uint16_t>(remote.lid);
  }
  a.mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
           IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  return a;
}

QpAttrs RtsAttrs(uint32_t local_psn, ReadDepths reads) {
  QpAttrs a;
  a.attr.qp_state = IBV_QPS_RTS;
  a.attr.sq_psn = local_psn;
  a.attr.timeout = 14;   // 4.096 µs × 2^14 ≈ 67 ms per retry
  a.attr.retry_cnt = 7;
  a.attr.rnr_retry = 7;  // infinite
  a.attr.max_rd_atomic = reads.initiator;  // outstanding RDMA READs we issue
  a.mask = IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
           IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  return a;
}

absl::StatusOr<std::unique_ptr<VerbsQp>> VerbsQp::Open(const std::string& device,
                                                      uint8_t port, size_t buffer_bytes,
                                                      const QpOptions& options) {
  std::unique_ptr<VerbsQp> q(new VerbsQp());
  q->port_ = port;
  absl::StatusOr<ibv_context*> ctx = OpenVerbsDevice(device);
  if (!ctx.ok()) return ctx.status();
  q->ctx_ = *ctx;
  ibv_port_attr pattr{};
  if (ibv_query_port(q->ctx_, port, &pattr) != 0) {
    return absl::FailedPreconditionError(absl::StrCat("cannot query port ", port));
  }
  q->lid_ = pattr.lid;
  q->active_mtu_ = IbvMtuToBytes(pattr.active_mtu);
  q->QueryDevice();
  absl::Status s = q->AllocateBuffers(buffer_bytes, options);
  if (s.ok()) s = q->CreateQp(options);
  if (!s.ok()) return s;
  QpAttrs a = InitAttrs(port, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                  IBV_ACCESS_REMOTE_READ);
  if (int rc = ibv_modify_qp(q->qp_, &a.attr, a.mask); rc != 0) {
    return absl::ErrnoToStatus(rc, "QP to INIT");
  }
  return q;
}

void VerbsQp::QueryDevice() {
  ibv_device_attr dattr{};
  if (ibv_query_device(ctx_, &dattr) == 0) {
    max_qp_rd_atom_ = dattr.max_qp_rd_atom;
    max_qp_init_rd_atom_ = dattr.max_qp_init_rd_atom;
  }
}

absl::Status VerbsQp::CreateQp(const QpOptions& options) {
  // Inline needs the CPU to read the buffer: host memory only, as perftest.
  const uint32_t want_inline = gpu_ ? 0 : options.inline_bytes;
  for (uint32_t inline_bytes : {want_inline, 0u}) {
    ibv_qp_init_attr init = RcInitAttr(cq_, std::max<uint32_t>(options.tx_depth, 1));
    init.cap.max_inline_data = inline_bytes;
    if (cm_id_ != nullptr) {
      if (rdma_create_qp(cm_id_, pd_, &init) == 0) qp_ = cm_id_->qp;
    } else {
      qp_ = ibv_create_qp(pd_, &init);
    }
    if (qp_ != nullptr) {
      // The provider writes back what it granted (perftest clamps to it).
      max_inline_ = std::min(init.cap.max_inline_data, inline_bytes);
      return absl::OkStatus();
    }
    if (inline_bytes == 0) break;  // a refusal that is not about inline
  }
  return absl::ErrnoToStatus(errno, cm_id_ != nullptr ? "rdma_create_qp" : "ibv_create_qp");
}

absl::Status VerbsQp::AllocateBuffers(size_t buffer_bytes, const QpOptions& options) {
  const uint32_t tx_depth = std::max<uint32_t>(options.tx_depth, 1);
  const int gpu = options.gpu;
  pd_ = ibv_alloc_pd(ctx_);
  // One CQ for both queues: room for every send and receive outstanding.
  cq_ = ibv_create_cq(ctx_, static_cast<int>(tx_depth + RecvDepth(tx_depth)), nullptr, nullptr, 0);
  if (pd_ == nullptr || cq_ == nullptr) {
    return absl::ResourceExhaustedError("cannot allocate PD/CQ");
  }
  buf_len_ = buffer_bytes;
  // A constant, so the ibv_reg_mr macro binds plain ibv_reg_mr
  // (IBVERBS_1.1); relaxed ordering goes through ibv_reg_mr_iova2 by dlvsym.
  const int access =
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  const int relaxed = options.relaxed_ordering ? IBV_ACCESS_RELAXED_ORDERING : 0;
  if (gpu >= 0) {
    absl::StatusOr<std::unique_ptr<GpuMemory>> mem = GpuMemory::Allocate(gpu, buffer_bytes);
    if (!mem.ok()) return mem.status();
    gpu_ = *std::move(mem);
    mr_addr_ = gpu_->address();
    // dma-buf first (open kernel module), then peermem on the raw pointer.
    std::string dmabuf_why;
    if (absl::StatusOr<int> fd = gpu_->DmaBufFd(); !fd.ok()) {
      dmabuf_why = std::string(fd.status().message());
    } else {
      if (RegDmabufMrFn reg = VerbsRegDmabufMr(); reg == nullptr) {
        dmabuf_why = "rdma-core older than 34 has no ibv_reg_dmabuf_mr";
      } else {
        // Registered at the buffer's offset into the page-aligned export.
        mr_ = reg(pd_, gpu_->range().offset, buffer_bytes, mr_addr_, *fd, access | relaxed);
        if (mr_ != nullptr) {
          memory_ = "gpu dma-buf";
          relaxed_ordering_ = relaxed != 0;
        } else {
          dmabuf_why = absl::StrCat("ibv_reg_dmabuf_mr: ", strerror(errno));
        }
      }
      close(*fd);
    }
    if (mr_ == nullptr) {
      mr_ = RegisterHost(reinterpret_cast<void*>(mr_addr_), buffer_bytes, relaxed != 0);
      memory_ = "gpu peermem";
    }
    if (mr_ == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot register GPU memory with the NIC: dma-buf: ", dmabuf_why,
          "; nvidia_peermem: ibv_reg_mr on the device pointer: ", strerror(errno),
          " (is nvidia_peermem loaded?)"));
    }
    return absl::OkStatus();
  }
  if (posix_memalign(&buf_, 4096, buffer_bytes) != 0) {
    buf_ = nullptr;
    return absl::ResourceExhaustedError("cannot allocate the transfer buffer");
  }
  memset(buf_, 0, buffer_bytes);
  mr_ = RegisterHost(buf_, buffer_bytes, relaxed != 0);
  if (mr_ == nullptr) return absl::ErrnoToStatus(errno, "ibv_reg_mr");
  mr_addr_ = reinterpret_cast<uint64_t>(buf_);
  return absl::OkStatus();
}

ibv_mr* VerbsQp::RegisterHost(void* addr, size_t length, bool relaxed) {
  constexpr int kAccess =
      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  if (relaxed) {
    if (RegMrIova2Fn reg = VerbsRegMrIova2(); reg != nullptr) {
      ibv_mr* mr = reg(pd_, addr, length, reinterpret_cast<uintptr_t>(addr),
                       kAccess | IBV_ACCESS_RELAXED_ORDERING);
      if (mr != nullptr) {
        relaxed_ordering_ = true;
        return mr;
      }
    }
  }
  relaxed_ordering_ = false;
  return ibv_reg_mr(pd_, addr, length, kAccess);
}

absl::StatusOr<std::unique_ptr<VerbsQp>> VerbsQp::OnCmId(rdma_cm_id* id, size_t buffer_bytes,
                                                        const QpOptions& options) {
  if (id == nullptr || id->verbs == nullptr) {
    return absl::FailedPreconditionError("rdma_cm resolved no RDMA device for the peer");
  }
  std::unique_ptr<VerbsQp> q(new VerbsQp());
  q->cm_id_ = id;
  q->ctx_ = id->verbs;
  q->port_ = id->port_num;
  ibv_port_attr pattr{};
  if (ibv_query_port(q->ctx_, q->port_, &pattr) == 0) {
    q->lid_ = pattr.lid;
    q->active_mtu_ = IbvMtuToBytes(pattr.active_mtu);
  }
  q->QueryDevice();
  absl::Status s = q->AllocateBuffers(buffer_bytes, options);
  if (s.ok()) s = q->CreateQp(options);
  if (!s.ok()) return s;
  return q;
}

VerbsQp::~VerbsQp() {
  if (cm_id_ != nullptr && qp_ != nullptr) {
    rdma_destroy_qp(cm_id_);
  } else if (qp_) {
    ibv_destroy_qp(qp_);
  }
  if (mr_) ibv_dereg_mr(mr_);
  if (cq_) ibv_destroy_cq(cq_);
  if (pd_) ibv_dealloc_pd(pd_);
  if (ctx_ && cm_id_ == nullptr) ibv_close_device(ctx_);  // rdma_cm owns its context
  free(buf_);
}

uint32_t VerbsQp::qpn() const { return qp_->qp_num; }
std::string VerbsQp::device_name() const {
  const char* name = ctx_ != nullptr ? ibv_get_device_name(ctx_->device) : nullptr;
  return name != nullptr ? name : "";
}
uint32_t VerbsQp::lkey() const { return mr_->lkey; }
uint32_t VerbsQp::rkey() const { return mr_->rkey; }
uint64_t VerbsQp::addr() const { return mr_addr_; }

absl::StatusOr<std::vector<uint8_t>> VerbsQp::Gid(uint8_t index) const {
  ibv_gid gid{};
  if (int rc = ibv_query_gid(ctx_, port_, index, &gid); rc != 0) {
    return absl::ErrnoToStatus(rc, absl::StrCat("ibv_query_gid ", index));
  }
  return std::vector<uint8_t>(gid.raw, gid.raw + 16);
}

absl::Status VerbsQp::Connect(const RemoteQp& remote, bool use_grh, uint8_t gid_index,
                              uint32_t local_psn, uint8_t traffic_class,
                              uint8_t service_level) {
  const ReadDepths reads =
      NegotiateReadDepths(max_qp_init_rd_atom_, max_qp_rd_atom_, remote.max_rd_atom);
  QpAttrs rtr = RtrAttrs(remote, PathMtu(active_mtu_, remote.active_mtu), port_,
                         use_grh, gid_index, traffic_class, reads, service_level);
  if (int rc = ibv_modify_qp(qp_, &rtr.attr, rtr.mask); rc != 0) {
    return absl::ErrnoToStatus(rc, "QP to RTR (check GID index and path MTU)");
  }
  QpAttrs rts = RtsAttrs(local_psn, reads);
  if (int rc = ibv_modify_qp(qp_, &rts.attr, rts.mask); rc != 0) {
    return absl::ErrnoToStatus(rc, "QP to RTS");
  }
  return absl::OkStatus();
}

absl::Status VerbsQp::Post(ibv_wr_opcode opcode, const RemoteQp& remote, size_t size,
                           uint64_t wr_id, bool signaled) {
  ibv_sge sge{addr(), static_cast<uint32_t>(size), lkey()};
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  wr.opcode = opcode;
  wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
  if (size <= max_inline_) wr.send_flags |= IBV_SEND_INLINE;  // copied now, lkey unused
  if (opcode != IBV_WR_SEND) {
    wr.wr.rdma.remote_addr = remote.addr;
    wr.wr.rdma.rkey = remote.rkey;
  }
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp_, &wr, &bad); rc != 0) {
    return absl::ErrnoToStatus(rc, "ibv_post_send");
  }
  return absl::OkStatus();
}

absl::Status VerbsQp::PostRecv(size_t size, uint64_t wr_id) {
  ibv_sge sge{addr(), static_cast<uint32_t>(size), lkey()};
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = &sge;
  wr.num_sge = 1;
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qp_, &wr, &bad); rc != 0) {
    return absl::ErrnoToStatus(rc, "ibv_post_recv");
  }
  return absl::OkStatus();
}

absl::Status VerbsQp::PostRecvs(size_t size, const std::vector<uint64_t>& wr_ids) {
  if (wr_ids.empty()) return absl::OkStatus();
  ibv_sge sge{addr(), static_cast<uint32_t>(size), lkey()};
  ibv_recv_wr wrs[kMaxPoll];
  const size_t n = std::min<size_t>(wr_ids.size(), kMaxPoll);
  for (size_t i = 0; i < n; ++i) {
    wrs[i] = ibv_recv_wr{};
    wrs[i].wr_id = wr_ids[i];
    wrs[i].sg_list = &sge;
    wrs[i].num_sge = 1;
    wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
  }
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qp_, wrs, &bad); rc != 0) {
    return absl::ErrnoToStatus(rc, "ibv_post_recv");
  }
  return absl::OkStatus();
}

namespace {
absl::Status CompletionError(const ibv_wc& wc) {
  return absl::UnavailableError(absl::StrCat(
      "work completion error: ", ibv_wc_status_str(wc.status),
      wc.status == IBV_WC_RETRY_EXC_ERR ? " (peer unreachable or gone)" : ""));
}
}  // namespace

absl::StatusOr<bool> VerbsQp::PollOne() {
  const int n = ibv_poll_cq(cq_, 1, wc_);
  if (n < 0) return absl::InternalError("ibv_poll_cq failed");
  if (n == 0) return false;
  if (wc_[0].status != IBV_WC_SUCCESS) return CompletionError(wc_[0]);
  return true;
}

absl::StatusOr<int> VerbsQp::Poll(int max, std::vector<uint64_t>* wr_ids) {
  ibv_wc* wc = wc_;
  int n = ibv_poll_cq(cq_, std::min(max, kMaxPoll), wc);
  if (n < 0) return absl::InternalError("ibv_poll_cq failed");
  for (int i = 0; i < n; ++i) {
    if (wc[i].status != IBV_WC_SUCCESS) return CompletionError(wc[i]);
    wr_ids->push_back(wc[i].wr_id);
  }
  return n;
}

}  // namespace nodeprobe::platform
