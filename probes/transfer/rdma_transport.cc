// File: rdma_transport.cc
#include "probes/transfer/rdma_transport.h"

#include <arpa/inet.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/rdma_cm.h"
#include "platform/rdma_sysfs.h"
#include "platform/verbs_qp.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {
namespace {

uint32_t RandomPsn() {
  std::random_device rd;
  return rd() & 0xffffff;  // PSNs are 24 bits
}

v1::RdmaEndpoint Describe(const platform::VerbsQp& qp, const RdmaLocal& local,
                          const std::vector<uint8_t>& gid, uint32_t psn) {
  v1::RdmaEndpoint e;
  e.set_lid(qp.lid());
  e.set_gid(std::string(gid.begin(), gid.end()));
  e.set_gid_index(local.gid.index);
  e.set_gid_type(local.gid.type);
  e.set_qpn(qp.qpn());
  e.set_psn(psn);
  e.set_rkey(qp.rkey());
  e.set_addr(qp.addr());
  e.set_active_mtu(qp.active_mtu());
  return e;
}

absl::StatusOr<platform::RemoteQp> ToRemote(const v1::RdmaEndpoint& e) {
  if (e.gid().size() != 16 || e.qpn() == 0 || e.qpn() > 0xffffff) {
    return absl::InvalidArgumentError("malformed RDMA endpoint from the peer");
  }
  platform::RemoteQp r;
  r.lid = e.lid();
  memcpy(r.gid, e.gid().data(), 16);
  r.qpn = e.qpn();
  r.psn = e.psn();
  r.rkey = e.rkey();
  r.addr = e.addr();
  r.active_mtu = e.active_mtu();
  return r;
}

// Sets up the QP and its description for this end.
absl::StatusOr<std::unique_ptr<platform::VerbsQp>> OpenQp(const RdmaLocal& local,
                                                          const v1::TransferRequest& req) {
  // Latency ping-pong sends from the first half and receives into the
  // second, as ib_write_lat does, so the byte it polls is only ever written
  // by the peer.
  const size_t bytes = req.op() == v1::WRITE_LAT ? 2 * req.size() : req.size();
  return platform::VerbsQp::Open(local.device, local.port, bytes,
                                 std::max<uint32_t>(req.tx_depth(), 1), local.gpu);
}

ibv_wr_opcode OpcodeOf(v1::TransferOp op) {
  switch (op) {
    case v1::READ_BW: return IBV_WR_RDMA_READ;
    case v1::SEND_BW: return IBV_WR_SEND;
    default: return IBV_WR_RDMA_WRITE;
  }
}

// The peer's receive half for WRITE_LAT.
platform::RemoteQp SecondHalf(platform::RemoteQp r, size_t size) {
  r.addr += size;
  return r;
}

// Drains completions; error on a failed one.
absl::Status Drain(platform::VerbsQp& qp) {
  std::vector<uint64_t> ids;
  absl::StatusOr<int> n = qp.Poll(platform::VerbsQp::kMaxPoll, &ids);
  return n.ok() ? absl::OkStatus() : n.status();
}

// True once the control connection has something to read (the peer's Done)
// or has closed.
bool ControlReadable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

// ib_write_lat's loop: write iteration i's tag into the peer's receive half,
// wait until the peer's tag i lands in ours. One round trip per iteration.
absl::Status PingPong(platform::VerbsQp& qp, const platform::RemoteQp& remote, size_t size,
                      uint64_t iterations, bool initiator, absl::Duration idle,
                      std::vector<int64_t>* rtts, uint64_t warmup) {
  volatile uint8_t* send_tag = qp.buffer() + size - 1;
  volatile uint8_t* recv_tag = qp.buffer() + 2 * size - 1;
  const platform::RemoteQp target = SecondHalf(remote, size);
  const int64_t idle_ns = absl::ToInt64Nanoseconds(idle);
  for (uint64_t i = 0; i < iterations; ++i) {
    const uint8_t tag = static_cast<uint8_t>(i % 255 + 1);  // never 0 (initial)
    const int64_t t0 = NowNs();
    if (initiator) {
      *send_tag = tag;
      absl::Status s = qp.Post(IBV_WR_RDMA_WRITE, target, size, i);
      if (!s.ok()) return s;
    }
    while (*recv_tag != tag) {
      if (NowNs() - t0 > idle_ns) {
        return absl::DeadlineExceededError("the peer stopped answering the ping-pong");
      }
      absl::Status s = Drain(qp);
      if (!s.ok()) return s;
    }
    if (!initiator) {
      *send_tag = tag;
      absl::Status s = qp.Post(IBV_WR_RDMA_WRITE, target, size, i);
      if (!s.ok()) return s;
    }
    if (initiator && i >= warmup) rtts->push_back(NowNs() - t0);
    absl::Status s = Drain(qp);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

// ib_write_bw's loop (and read/send): keep tx_depth requests outstanding
// for the duration. Like perftest's CQ moderation, only every
// kSignalEvery-th request (and the one that fills the window, and the
// last) asks for a completion: RC completes in order, so a signaled
// completion with wr_id i says requests 0..i are done, and the CPU does
// not poll once per small message. Nothing is allocated in the loop, and
// the figures are kept in constant memory (CompletionTally).
constexpr uint32_t kSignalEvery = 16;

struct BwOutcome {
  CompletionTally tally{0};
  absl::Status status;
};

BwOutcome BwLoop(platform::VerbsQp& qp, const platform::RemoteQp& remote, ibv_wr_opcode opcode,
                 size_t size, uint32_t tx_depth, double duration_s, absl::Duration idle) {
  BwOutcome out;
  std::vector<uint64_t> ids;
  ids.reserve(platform::VerbsQp::kMaxPoll);
  uint64_t posted = 0, completed = 0;
  bool last_signaled = true;
  const int64_t first_post = NowNs();
  out.tally = CompletionTally(first_post);
  const int64_t end = first_post + static_cast<int64_t>(duration_s * 1e9);
  int64_t last_progress = first_post;
  const int64_t idle_ns = absl::ToInt64Nanoseconds(idle);
  tx_depth = std::max<uint32_t>(tx_depth, 1);
  const uint32_t every = std::min(kSignalEvery, tx_depth);
  while (true) {
    const int64_t now = NowNs();
    while (posted - completed < tx_depth && now < end) {
      const bool signaled = (posted + 1) % every == 0 || posted + 1 - completed == tx_depth;
      out.status = qp.Post(opcode, remote, size, posted, signaled);
      if (!out.status.ok()) return out;
      ++posted;
      last_signaled = signaled;
    }
    if (now >= end && !last_signaled && posted - completed < tx_depth) {
      // The tail after the last signaled request would never report: one
      // more, signaled, closes the run.
      out.status = qp.Post(opcode, remote, size, posted, true);
      if (!out.status.ok()) return out;
      ++posted;
      last_signaled = true;
    }
    ids.clear();
    absl::StatusOr<int> n = qp.Poll(platform::VerbsQp::kMaxPoll, &ids);
    if (!n.ok()) {
      out.status = n.status();
      return out;
    }
    const int64_t polled = NowNs();
    uint64_t done_now = completed;
    for (uint64_t id : ids) done_now = std::max(done_now, id + 1);
    out.tally.Record(done_now - completed, polled);
    if (done_now > completed) last_progress = polled;
    completed = done_now;
    if (polled >= end && completed == posted && last_signaled) return out;
    if (polled - last_progress > idle_ns) {
      out.status = absl::DeadlineExceededError("no RDMA completion within the idle timeout");
      return out;
    }
  }
}

}  // namespace

absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::FileTree& sys,
                                          const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index) {
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  if (!devs.ok()) return devs.status();
  if (devs->empty()) {
    return absl::FailedPreconditionError("no RDMA device on this host");
  }
  // The port behind the interface the route to the peer leaves by: RoCE
  // through its GIDs' netdev, InfiniBand through its IPoIB interface. An
  // alias label ("eth0:1") is its interface.
  const std::string netdev = egress.netdev.substr(0, egress.netdev.find(':'));
  const std::vector<rdma::PortNetdevs> ports = rdma::NetdevsOfPorts(*devs, &sys);
  std::vector<const rdma::PortNetdevs*> behind;
  for (const rdma::PortNetdevs& p : ports) {
    if (!device.empty() && p.device != device) continue;
    if (std::find(p.netdevs.begin(), p.netdevs.end(), netdev) != p.netdevs.end()) {
      behind.push_back(&p);
    }
  }
  if (behind.empty() && !device.empty()) {
    // The device the user named, though no route leads through it: the
    // out-of-band exchange needs no IP on the RDMA port (perftest's way).
    for (const rdma::PortNetdevs& p : ports) {
      if (p.device == device) behind.push_back(&p);
    }
    if (behind.empty()) return absl::NotFoundError(absl::StrCat("no RDMA device ", device));
  }
  if (behind.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no RDMA port is behind ", netdev, ", the interface that routes to the peer (RoCE: a GID "
        "on it; InfiniBand: its IPoIB interface); give the peer's RDMA-rail address, or --device"));
  }
  std::string why_not;
  for (const rdma::PortNetdevs* p : behind) {
    if (!p->active) {
      absl::StrAppend(&why_not, p->device, ":", p->port, " is not ACTIVE; ");
      continue;
    }
    for (const platform::RawRdmaDevice& dev : *devs) {
      if (dev.name != p->device) continue;
      for (const platform::RawRdmaPort& port : dev.ports) {
        if (port.port != p->port) continue;
        std::vector<GidCandidate> table;
        for (const platform::RawGid& g : port.gids) {
          table.push_back({g.index, g.gid.value.value_or(""), g.type.value.value_or(""),
                           g.netdev.value.value_or("")});
        }
        absl::StatusOr<GidChoice> gid =
            SelectGid(table, p->link_layer, netdev, egress.netdev_ipv4, gid_index);
        if (!gid.ok()) {
          absl::StrAppend(&why_not, dev.name, ":", port.port, ": ", gid.status().message(), "; ");
          continue;
        }
        if (p->link_layer == "InfiniBand") {
          gid->reason = absl::StrCat("InfiniBand port behind ", netdev, " (its IPoIB interface): ",
                                     gid->reason);
        }
        return RdmaLocal{dev.name, static_cast<uint8_t>(port.port), *gid,
                         p->link_layer == "Ethernet"};
      }
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no usable RDMA port reaches the peer via ", netdev, ": ", why_not));
}

absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index) {
  return ChooseRdmaLocal(platform::FileTree("/sys"), egress, device, gid_index);
}

RowOutcome RunRdmaRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                      const Timeouts& t, const RdmaLocal& local) {
  RowOutcome out;
  out.result.set_size(req.size());
  auto fail = [&](absl::Status s) {
    out.status = std::move(s);
    return out;
  };
  if (local.gpu >= 0 && req.op() == v1::WRITE_LAT) {
    return fail(absl::InvalidArgumentError(
        "write_lat polls its buffer from the CPU: use --gpu with the bandwidth operations"));
  }
  // Out-of-band: our QP is described in the request. rdma_cm: the kernel
  // picks device and GID, and the connection carries the buffers.
  std::unique_ptr<platform::VerbsQp> own_qp;
  std::unique_ptr<platform::CmConnection> cm;
  const uint32_t psn = RandomPsn();
  v1::ControlMessage msg;
  *msg.mutable_request() = req;
  if (!req.rdma_cm()) {
    absl::StatusOr<std::unique_ptr<platform::VerbsQp>> qp = OpenQp(local, req);
    if (!qp.ok()) return fail(qp.status());
    own_qp = *std::move(qp);
    absl::StatusOr<std::vector<uint8_t>> gid = own_qp->Gid(static_cast<uint8_t>(local.gid.index));
    if (!gid.ok()) return fail(gid.status());
    *msg.mutable_request()->mutable_endpoint() = Describe(*own_qp, local, *gid, psn);
  }
  absl::StatusOr<platform::Fd> control = platform::Connect(peer, absl::Now() + t.setup);
  if (!control.ok()) return fail(control.status());
  absl::Status s = platform::WriteMessage(control->get(), msg, absl::Now() + t.setup);
  v1::ControlMessage reply;
  if (s.ok()) s = platform::ReadMessage(control->get(), &reply, absl::Now() + t.setup);
  if (s.ok() && !reply.has_ready()) {
    s = absl::FailedPreconditionError(
        absl::StrCat("server refused: ", reply.has_done() ? reply.done().error() : "?"));
  }
  if (!s.ok()) return fail(s);
  platform::RemoteQp remote_qp;
  if (req.rdma_cm()) {
    absl::StatusOr<std::unique_ptr<platform::CmConnection>> c = platform::CmConnect(
        peer.host, static_cast<uint16_t>(reply.ready().cm_port()),
        req.op() == v1::WRITE_LAT ? 2 * req.size() : req.size(),
        std::max<uint32_t>(req.tx_depth(), 1), absl::Now() + t.setup, local.gpu,
        static_cast<uint8_t>(req.traffic_class()));
    if (!c.ok()) return fail(c.status());
    cm = *std::move(c);
    remote_qp = cm->remote;
  } else {
    absl::StatusOr<platform::RemoteQp> remote = ToRemote(reply.ready().endpoint());
    if (!remote.ok()) return fail(remote.status());
    remote_qp = *remote;
    s = CheckGidTypesAgree(local.gid.type, reply.ready().endpoint().gid_type());
    if (s.ok()) {
      s = own_qp->Connect(remote_qp, local.use_grh, static_cast<uint8_t>(local.gid.index), psn,
                          static_cast<uint8_t>(req.traffic_class()));
    }
    if (!s.ok()) return fail(s);
  }
  platform::VerbsQp* qp = cm ? cm->qp.get() : own_qp.get();
  out.memory = qp->memory();
  const platform::RemoteQp* remote = &remote_qp;
  out.started = true;

  if (req.op() == v1::WRITE_LAT) {
    std::vector<int64_t> rtts;
    const int64_t start = NowNs();
    s = PingPong(*qp, *remote, req.size(), req.warmup() + req.iterations(), true, t.idle, &rtts,
                 req.warmup());
    out.result.set_iterations(rtts.size());
    out.result.set_bytes(rtts.size() * req.size() * 2);
    out.result.set_seconds(static_cast<double>(NowNs() - start) / 1e9);
    *out.result.mutable_latency() = ComputeLatency(rtts);
    v1::ControlMessage done;
    done.mutable_done()->set_bytes(out.result.bytes());
    (void)platform::WriteMessage(control->get(), done, absl::Now() + t.setup);
    if (!s.ok()) {
      out.result.set_partial(true);
      out.status = s;
    }
    return out;
  }
  BwOutcome bw = BwLoop(*qp, *remote, OpcodeOf(req.op()), req.size(), req.tx_depth(),
                        req.duration_s(), t.idle);
  s = bw.status;
  BandwidthFigures f = bw.tally.Figures(req.size());
  out.result.set_iterations(bw.tally.count());
  out.result.set_bytes(bw.tally.count() * req.size());
  out.result.set_seconds(f.seconds);
  out.result.set_bw_avg_gbps(f.avg_gbps);
  out.result.set_bw_peak_gbps(f.peak_gbps);
  out.result.set_bw_avg_mibps(f.avg_mibps);
  out.result.set_msg_rate_mpps(f.msg_rate_mpps);
  v1::ControlMessage done;
  done.mutable_done()->set_bytes(out.result.bytes());
  if (!s.ok()) done.mutable_done()->set_error(std::string(s.message()));
  (void)platform::WriteMessage(control->get(), done, absl::Now() + t.setup);
  if (s.ok() && req.bidirectional()) {
    // The server ran the same loop toward us; like perftest -b, the figure
    // is the sum of both directions.
    v1::ControlMessage theirs;
    s = platform::ReadMessage(control->get(), &theirs, absl::Now() + t.setup + t.idle);
    if (s.ok() && theirs.has_done() && theirs.done().error().empty()) {
      BandwidthFigures r = ComputeBandwidthFromBytes(theirs.done().bytes(),
                                                     theirs.done().first_ns(),
                                                     theirs.done().last_ns());
      out.result.set_bytes(out.result.bytes() + theirs.done().bytes());
      out.result.set_bw_avg_gbps(out.result.bw_avg_gbps() + r.avg_gbps);
      out.result.set_bw_peak_gbps(out.result.bw_peak_gbps() + r.avg_gbps);
      out.result.set_bw_avg_mibps(out.result.bw_avg_mibps() + r.avg_mibps);
    } else if (s.ok()) {
      s = absl::UnavailableError(absl::StrCat(
          "server: ", theirs.has_done() ? theirs.done().error() : "no result"));
    }
  }
  if (!s.ok()) {
    out.result.set_partial(true);
    out.status = s;
  }
  return out;
}

void ServeRdma(int control, const v1::TransferRequest& req, const Timeouts& t) {
  v1::ControlMessage reply;
  auto refuse = [&](const absl::Status& s) {
    reply.mutable_done()->set_error(std::string(s.message()));
    (void)platform::WriteMessage(control, reply, absl::Now() + t.setup);
  };
  sockaddr_in local_addr{};
  socklen_t len = sizeof(local_addr);
  getsockname(control, reinterpret_cast<sockaddr*>(&local_addr), &len);
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &local_addr.sin_addr, ip, sizeof(ip));
  absl::StatusOr<platform::Egress> iface = platform::InterfaceOf(ip);
  if (!iface.ok()) return refuse(iface.status());
  // The listener outlives the connection: the accepted id reports its
  // events on the listener's channel.
  std::unique_ptr<platform::CmListener> listener;
  std::unique_ptr<platform::CmConnection> cm;
  std::unique_ptr<platform::VerbsQp> own_qp;
  platform::RemoteQp remote_qp;
  if (req.rdma_cm()) {
    absl::StatusOr<std::unique_ptr<platform::CmListener>> listening =
        platform::CmListener::Listen(ip, 0);
    if (!listening.ok()) return refuse(listening.status());
    listener = *std::move(listening);
    reply.mutable_ready()->set_cm_port(listener->port());
    if (!platform::WriteMessage(control, reply, absl::Now() + t.setup).ok()) return;
    absl::StatusOr<std::unique_ptr<platform::CmConnection>> c = listener->Accept(
        req.op() == v1::WRITE_LAT ? 2 * req.size() : req.size(),
        std::max<uint32_t>(req.tx_depth(), 1), absl::Now() + t.setup);
    if (!c.ok()) return;  // the client reports the failure it sees
    cm = *std::move(c);
    remote_qp = cm->remote;
  } else {
    absl::StatusOr<RdmaLocal> local = ChooseRdmaLocal(*iface, "", std::nullopt);
    if (!local.ok()) return refuse(local.status());
    absl::Status agree = CheckGidTypesAgree(local->gid.type, req.endpoint().gid_type());
    if (!agree.ok()) return refuse(agree);
    auto qp = OpenQp(*local, req);
    if (!qp.ok()) return refuse(qp.status());
    own_qp = *std::move(qp);
    auto gid = own_qp->Gid(static_cast<uint8_t>(local->gid.index));
    if (!gid.ok()) return refuse(gid.status());
    absl::StatusOr<platform::RemoteQp> remote = ToRemote(req.endpoint());
    if (!remote.ok()) return refuse(remote.status());
    remote_qp = *remote;
    const uint32_t psn = RandomPsn();
    absl::Status s = own_qp->Connect(remote_qp, local->use_grh,
                                     static_cast<uint8_t>(local->gid.index), psn,
                                     static_cast<uint8_t>(req.traffic_class()));
    if (!s.ok()) return refuse(s);
    *reply.mutable_ready()->mutable_endpoint() = Describe(*own_qp, *local, *gid, psn);
  }
  platform::VerbsQp* qp = cm ? cm->qp.get() : own_qp.get();
  if (req.op() == v1::SEND_BW) {
    // Receives must be posted before the first SEND arrives (with rdma_cm
    // they may trail it; the infinite RNR retry covers that), 4x the
    // sender's depth.
    for (uint32_t i = 0; i < platform::RecvDepth(std::max<uint32_t>(req.tx_depth(), 1)); ++i) {
      if (!qp->PostRecv(req.size(), i).ok()) return refuse(absl::InternalError("post recv"));
    }
  }
  if (!cm && !platform::WriteMessage(control, reply, absl::Now() + t.setup).ok()) return;
  const absl::Time until = absl::Now() + absl::Seconds(req.duration_s()) + t.setup + t.idle;
  if (req.op() == v1::WRITE_LAT) {
    std::vector<int64_t> unused;
    (void)PingPong(*qp, remote_qp, req.size(), req.warmup() + req.iterations(), false, t.idle,
                   &unused, 0);
  } else if (req.op() == v1::SEND_BW) {
    // Repost a receive for every one consumed until the client is done.
    std::vector<uint64_t> ids;
    while (absl::Now() < until && !ControlReadable(control)) {
      ids.clear();
      absl::StatusOr<int> n = qp->Poll(platform::VerbsQp::kMaxPoll, &ids);
      if (!n.ok()) break;
      (void)qp->PostRecvs(req.size(), ids);  // one call for the batch
    }
  }
  if (req.bidirectional() && (req.op() == v1::WRITE_BW || req.op() == v1::READ_BW)) {
    // Our half of a bidirectional run: the same loop toward the client,
    // then our figures after the client's Done.
    BwOutcome bw = BwLoop(*qp, remote_qp, OpcodeOf(req.op()), req.size(), req.tx_depth(),
                          req.duration_s(), t.idle);
    v1::ControlMessage done;
    (void)platform::ReadMessage(control, &done, until);
    v1::ControlMessage mine;
    mine.mutable_done()->set_bytes(bw.tally.count() * req.size());
    mine.mutable_done()->set_first_ns(bw.tally.first_post_ns());
    mine.mutable_done()->set_last_ns(bw.tally.last_ns());
    if (!bw.status.ok()) mine.mutable_done()->set_error(std::string(bw.status.message()));
    (void)platform::WriteMessage(control, mine, absl::Now() + t.setup);
    return;
  }
  // WRITE/READ land in (or leave) our buffer without us: wait for Done.
  v1::ControlMessage done;
  (void)platform::ReadMessage(control, &done, until);
}

}  // namespace nodeprobe::transfer
