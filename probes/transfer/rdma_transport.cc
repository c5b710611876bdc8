#include "probes/transfer/rdma_transport.h"

#include <arpa/inet.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <functional>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/rdma_cm.h"
#include "platform/rdma_sysfs.h"
#include "platform/verbs_qp.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/rdma_handshake.h"
#include "probes/transfer/rdma_loops.h"
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
  e.set_max_rd_atom(static_cast<uint32_t>(std::max(qp.max_qp_rd_atom(), 0)));
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
  r.max_rd_atom = e.max_rd_atom();
  return r;
}

// Latency ping-pong sends from the first half of the buffer and receives
// into the second, as ib_write_lat does, so the byte it polls is only ever
// written by the peer.
size_t BufferBytes(const v1::TransferRequest& req) {
  return req.op() == v1::WRITE_LAT ? 2 * req.size() : req.size();
}

// perftest's choices per test: inline data for latency (host memory only),
// relaxed ordering for bandwidth buffers, never for the latency buffer
// whose last byte the CPU polls.
platform::QpOptions QpOptionsFor(const v1::TransferRequest& req, int gpu) {
  platform::QpOptions o;
  o.tx_depth = std::max<uint32_t>(req.tx_depth(), 1);
  o.gpu = gpu;
  const bool latency = req.op() == v1::WRITE_LAT;
  o.inline_bytes = latency ? platform::kLatencyInlineBytes : 0;
  o.relaxed_ordering = !latency;
  return o;
}

// Sets up the QP for this end.
absl::StatusOr<std::unique_ptr<platform::VerbsQp>> OpenQp(const RdmaLocal& local,
                                                          const v1::TransferRequest& req) {
  return platform::VerbsQp::Open(local.device, local.port, BufferBytes(req),
                                 QpOptionsFor(req, local.gpu));
}

ibv_wr_opcode OpcodeOf(v1::TransferOp op) {
  switch (op) {
    case v1::READ_BW: return IBV_WR_RDMA_READ;
    case v1::SEND_BW: return IBV_WR_SEND;
    default: return IBV_WR_RDMA_WRITE;
  }
}

// True once the control connection has something to read (the peer's Done)
// or has closed.
bool ControlReadable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) > 0;
}

// rdma_cm picks the device from the IP route; when the caller named one,
// a different choice is an error rather than a silent measurement of
// another HCA.
absl::Status SameDevice(const platform::VerbsQp& qp, const std::string& want,
                        const char* who) {
  if (want.empty() || qp.device_name() == want) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      who, " reached the peer through ", qp.device_name(), ", not ", want,
      " as asked: give the address on ", want, "'s rail, or drop the device"));
}

// Posts of a latency row: one more than the round trips it measures.
uint64_t PingPongPosts(const v1::TransferRequest& req) {
  return req.warmup() + RdmaLatencyIterations(req) + 1;
}

}  // namespace

uint64_t RdmaLatencyIterations(const v1::TransferRequest& req) {
  return req.iterations() > 0 ? req.iterations() : kPerftestLatencyIterations;
}

namespace {

// The ports a transfer toward the peer may use: the port behind the
// interface the route to the peer leaves by (RoCE through its GIDs'
// netdev, InfiniBand through its IPoIB interface); or, when the user named
// a device the route does not lead through (rails in one subnet, source
// routing), that device's ports, with `own_table` set: their own RoCE v2
// GIDs are the candidates, as perftest -d dev uses the named port's table
// (the out-of-band exchange needs no IP on the RDMA port).
absl::StatusOr<std::vector<const rdma::PortNetdevs*>> PortsTowardPeer(
    const std::vector<rdma::PortNetdevs>& ports, const std::string& netdev,
    const std::string& device, std::optional<uint32_t> gid_index, uint32_t port,
    bool* own_table) {
  std::vector<const rdma::PortNetdevs*> behind;
  auto named = [&](const rdma::PortNetdevs& p) {
    return p.device == device && (port == 0 || p.port == port);
  };
  for (const rdma::PortNetdevs& p : ports) {
    if (!device.empty() && !named(p)) continue;
    if (std::find(p.netdevs.begin(), p.netdevs.end(), netdev) != p.netdevs.end()) {
      behind.push_back(&p);
    }
  }
  *own_table = false;
  if (behind.empty() && !device.empty()) {
    for (const rdma::PortNetdevs& p : ports) {
      if (named(p)) behind.push_back(&p);
    }
    *own_table = true;
    if (behind.empty()) {
      return absl::NotFoundError(port == 0 ? absl::StrCat("no RDMA device ", device)
                                           : absl::StrCat("no RDMA port ", device, ":", port));
    }
  }
  if (behind.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no RDMA port is behind ", netdev, ", the interface that routes to the peer (RoCE: a GID "
        "on it; InfiniBand: its IPoIB interface); give the peer's RDMA-rail address, or --device"));
  }
  if (gid_index && device.empty() && behind.size() > 1) {
    // A GID index means something only on its own port's table.
    std::vector<std::string> names;
    for (const rdma::PortNetdevs* p : behind) names.push_back(absl::StrCat(p->device, ":", p->port));
    return absl::InvalidArgumentError(absl::StrCat(
        "--gid-index ", *gid_index, " is ambiguous: ", absl::StrJoin(names, " and "),
        " are all behind ", netdev, "; add --device (and --ib-port)"));
  }
  return behind;
}

}  // namespace

absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::FileTree& sys,
                                          const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index, uint32_t port) {
  if (port != 0 && device.empty()) {
    return absl::InvalidArgumentError("a port needs the device it belongs to (--device)");
  }
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  if (!devs.ok()) return devs.status();
  if (devs->empty()) {
    return absl::FailedPreconditionError("no RDMA device on this host");
  }
  // An alias label ("eth0:1") is its interface.
  const std::string netdev = egress.netdev.substr(0, egress.netdev.find(':'));
  const std::vector<rdma::PortNetdevs> ports = rdma::NetdevsOfPorts(*devs, &sys);
  bool own_table = false;
  absl::StatusOr<std::vector<const rdma::PortNetdevs*>> behind =
      PortsTowardPeer(ports, netdev, device, gid_index, port, &own_table);
  if (!behind.ok()) return behind.status();
  // The first ACTIVE one with a GID that reaches the peer.
  std::string why_not;
  for (const rdma::PortNetdevs* p : *behind) {
    if (!p->active) {
      absl::StrAppend(&why_not, p->device, ":", p->port, " is not ACTIVE; ");
      continue;
    }
    for (const platform::RawRdmaDevice& dev : *devs) {
      if (dev.name != p->device) continue;
      for (const platform::RawRdmaPort& rp : dev.ports) {
        if (rp.port != p->port) continue;
        absl::StatusOr<GidChoice> gid =
            own_table ? SelectOwnGid(GidTableOf(rp), p->link_layer, gid_index, netdev)
                      : SelectGid(GidTableOf(rp), p->link_layer, netdev, egress.netdev_ipv4,
                                  gid_index);
        if (!gid.ok()) {
          absl::StrAppend(&why_not, dev.name, ":", rp.port, ": ", gid.status().message(), "; ");
          continue;
        }
        if (p->link_layer == "InfiniBand") {
          gid->reason = absl::StrCat("InfiniBand port behind ", netdev, " (its IPoIB interface): ",
                                     gid->reason);
        }
        return RdmaLocal{dev.name, static_cast<uint8_t>(rp.port), *gid,
                         p->link_layer == "Ethernet"};
      }
    }
  }
  return absl::FailedPreconditionError(
      absl::StrCat("no usable RDMA port reaches the peer via ", netdev, ": ", why_not));
}

absl::StatusOr<RdmaLocal> ChooseRdmaLocal(const platform::Egress& egress,
                                          const std::string& device,
                                          std::optional<uint32_t> gid_index, uint32_t port) {
  return ChooseRdmaLocal(platform::FileTree("/sys"), egress, device, gid_index, port);
}

namespace {

// A client row's connection: the control channel to the server and the
// queue pair, ours from the out-of-band exchange or rdma_cm's.
// The control channel is declared last so that it closes first, before
// the QP is torn down (as the server expects).
struct RowConnection {
  std::unique_ptr<platform::VerbsQp> own_qp;
  std::unique_ptr<platform::CmConnection> cm;
  platform::RemoteQp remote;
  platform::Fd control;
  platform::VerbsQp* qp() const { return cm ? cm->qp.get() : own_qp.get(); }
};

// The request sent and the QP connected. Out-of-band: our QP is described
// in the request. rdma_cm: the kernel picks device and GID, and the
// connection carries the buffers.
absl::Status ConnectRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                        const Timeouts& t, const RdmaLocal& local, RowConnection* c) {
  const uint32_t psn = RandomPsn();
  v1::ControlMessage msg;
  *msg.mutable_request() = req;
  if (!req.rdma_cm()) {
    absl::StatusOr<std::unique_ptr<platform::VerbsQp>> qp = OpenQp(local, req);
    if (!qp.ok()) return qp.status();
    c->own_qp = *std::move(qp);
    absl::StatusOr<std::vector<uint8_t>> gid = c->own_qp->Gid(static_cast<uint8_t>(local.gid.index));
    if (!gid.ok()) return gid.status();
    *msg.mutable_request()->mutable_endpoint() = Describe(*c->own_qp, local, *gid, psn);
  }
  absl::StatusOr<platform::Fd> control = platform::Connect(peer, absl::Now() + t.setup);
  if (!control.ok()) return control.status();
  c->control = *std::move(control);
  absl::Status s = platform::WriteMessage(c->control.get(), msg, absl::Now() + t.setup);
  v1::ControlMessage reply;
  if (s.ok()) s = platform::ReadMessage(c->control.get(), &reply, absl::Now() + t.setup);
  if (s.ok() && !reply.has_ready()) {
    s = absl::FailedPreconditionError(
        absl::StrCat("server refused: ", reply.has_done() ? reply.done().error() : "?"));
  }
  if (!s.ok()) return s;
  if (req.rdma_cm()) {
    absl::StatusOr<std::unique_ptr<platform::CmConnection>> cm = platform::CmConnect(
        peer.host, static_cast<uint16_t>(reply.ready().cm_port()), BufferBytes(req),
        QpOptionsFor(req, local.gpu), absl::Now() + t.setup,
        static_cast<uint8_t>(req.traffic_class()));
    if (!cm.ok()) return cm.status();
    c->cm = *std::move(cm);
    c->remote = c->cm->remote;
    return SameDevice(*c->cm->qp, local.device, "rdma_cm");
  }
  absl::StatusOr<platform::RemoteQp> remote = ToRemote(reply.ready().endpoint());
  if (!remote.ok()) return remote.status();
  c->remote = *remote;
  s = CheckGidTypesAgree(local.gid.type, reply.ready().endpoint().gid_type());
  if (!s.ok()) return s;
  return c->own_qp->Connect(c->remote, local.use_grh, static_cast<uint8_t>(local.gid.index), psn,
                            static_cast<uint8_t>(req.traffic_class()),
                            static_cast<uint8_t>(req.service_level()));
}

// write_lat: the ping-pong, its one-way latencies, then the server's Done.
void RunLatencyRow(RowConnection& c, const v1::TransferRequest& req, const Timeouts& t,
                   RowOutcome* out) {
  std::vector<int64_t> rtts;
  const int64_t start = NowNs();
  absl::Status s = PingPong(*c.qp(), c.remote, req.size(), PingPongPosts(req), true, t.idle, &rtts,
                            req.warmup());
  out->result.set_iterations(rtts.size());
  out->result.set_bytes(rtts.size() * req.size() * 2);
  out->result.set_seconds(static_cast<double>(NowNs() - start) / 1e9);
  *out->result.mutable_latency() = ComputeLatency(rtts);
  // No round trip measured is no figure, never "0 us".
  if (rtts.empty()) out->result.set_partial(true);
  v1::TransferDone mine;
  mine.set_bytes(out->result.bytes());
  if (!s.ok()) mine.set_error(std::string(s.message()));
  if (absl::StatusOr<v1::TransferDone> theirs = FinishClient(c.control.get(), mine, false, t);
      theirs.ok()) {
    AddServerCounters(*theirs, &out->result);
  }
  if (!s.ok()) {
    out->result.set_partial(true);
    out->status = s;
  }
}

// The bandwidth loop for the duration, perftest's figures, then the
// server's Done (and, bidirectional, its half added like perftest -b).
void RunBandwidthRow(RowConnection& c, const v1::TransferRequest& req, const Timeouts& t,
                     RowOutcome* out) {
  if (req.bidirectional()) {
    // Our QP is RTS: the server may start its half now.
    if (absl::Status go = SendGo(c.control.get(), t); !go.ok()) {
      out->status = go;
      return;
    }
  }
  BwOutcome bw;
  BwLoop(*c.qp(), c.remote, OpcodeOf(req.op()), req.size(), req.tx_depth(), req.duration_s(),
         t.idle, &bw);
  absl::Status s = bw.status;
  BandwidthFigures f = bw.record.Figures(req.size());
  v1::TransferResult& r = out->result;
  r.set_iterations(bw.record.count());
  r.set_bytes(bw.record.count() * req.size());
  r.set_seconds(f.seconds);
  r.set_bw_avg_gbps(f.avg_gbps);
  r.set_bw_peak_gbps(f.peak_gbps);
  r.set_bw_avg_mibps(f.avg_mibps);
  r.set_msg_rate_mpps(f.msg_rate_mpps);
  SetIntervals(f.interval_gbps, &r);
  if (bw.record.count() > 0) {
    r.set_intervals_start_unix_ns(UnixNsOfMonotonic(bw.record.first_post_ns()));
  }
  v1::TransferDone mine;
  mine.set_bytes(r.bytes());
  if (!s.ok()) mine.set_error(std::string(s.message()));
  absl::StatusOr<v1::TransferDone> theirs =
      FinishClient(c.control.get(), mine, req.bidirectional() && s.ok(), t);
  if (s.ok() && !theirs.ok()) s = theirs.status();
  if (theirs.ok()) AddServerCounters(*theirs, &r);
  if (s.ok() && req.bidirectional()) AddReverseDirection(*theirs, req.size(), &r);
  if (!s.ok()) {
    r.set_partial(true);
    out->status = s;
  }
}

}  // namespace

RowOutcome RunRdmaRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                      const Timeouts& t, const RdmaLocal& local) {
  RowOutcome out;
  out.result.set_size(req.size());
  if (local.gpu >= 0 && req.op() == v1::WRITE_LAT) {
    out.status = absl::InvalidArgumentError(
        "write_lat polls its buffer from the CPU: use --gpu with the bandwidth operations");
    return out;
  }
  RowConnection c;
  if (absl::Status s = ConnectRow(peer, req, t, local, &c); !s.ok()) {
    out.status = s;
    return out;
  }
  platform::VerbsQp* qp = c.qp();
  out.memory = qp->memory();
  out.relaxed_ordering = qp->relaxed_ordering();
  out.inline_bytes = qp->max_inline();
  out.started = true;
  if (req.op() == v1::WRITE_LAT) {
    RunLatencyRow(c, req, t, &out);
  } else {
    RunBandwidthRow(c, req, t, &out);
  }
  return out;
}

namespace {

// The server's side of a row's connection. The listener outlives the
// connection: the accepted id reports its events on the listener's channel.
struct ServeConnection {
  std::unique_ptr<platform::CmListener> listener;
  std::unique_ptr<platform::CmConnection> cm;
  std::unique_ptr<platform::VerbsQp> own_qp;
  platform::RemoteQp remote;
  platform::VerbsQp* qp() const { return cm ? cm->qp.get() : own_qp.get(); }
};

using RefuseFn = std::function<void(const absl::Status&)>;
using PostReceivesFn = std::function<absl::Status(platform::VerbsQp&)>;

// rdma_cm: Ready names our listener's port, then the client's connection
// is accepted (receives posted before the accept). False when the row
// ends here (the client reports the failure it sees).
bool AcceptCm(int control, const v1::TransferRequest& req, const Timeouts& t,
              const RdmaServeChoice& choice, const std::string& ip,
              const PostReceivesFn& post_receives, const RefuseFn& refuse, ServeConnection* c) {
  absl::StatusOr<std::unique_ptr<platform::CmListener>> listening =
      platform::CmListener::Listen(ip, 0);
  if (!listening.ok()) {
    refuse(listening.status());
    return false;
  }
  c->listener = *std::move(listening);
  v1::ControlMessage reply;
  reply.mutable_ready()->set_cm_port(c->listener->port());
  if (!platform::WriteMessage(control, reply, absl::Now() + t.setup).ok()) return false;
  absl::StatusOr<std::unique_ptr<platform::CmConnection>> cm = c->listener->Accept(
      BufferBytes(req), QpOptionsFor(req, choice.gpu), absl::Now() + t.setup,
      [&](platform::VerbsQp& qp) {
        absl::Status same = SameDevice(qp, choice.device, "rdma_cm");
        return same.ok() ? post_receives(qp) : same;
      });
  if (!cm.ok()) return false;
  c->cm = *std::move(cm);
  c->remote = c->cm->remote;
  return true;
}

// Out-of-band: our port chosen as a client would, our QP connected to the
// one the request describes (receives posted before Ready), and Ready
// describing ours.
bool ConnectOutOfBand(int control, const v1::TransferRequest& req, const Timeouts& t,
                      const RdmaServeChoice& choice, const platform::Egress& iface,
                      const PostReceivesFn& post_receives, const RefuseFn& refuse,
                      ServeConnection* c) {
  absl::StatusOr<RdmaLocal> local =
      ChooseRdmaLocal(iface, choice.device, choice.gid_index, choice.port);
  if (!local.ok()) return refuse(local.status()), false;
  local->gpu = choice.gpu;
  absl::Status agree = CheckGidTypesAgree(local->gid.type, req.endpoint().gid_type());
  if (!agree.ok()) return refuse(agree), false;
  auto qp = OpenQp(*local, req);
  if (!qp.ok()) return refuse(qp.status()), false;
  c->own_qp = *std::move(qp);
  auto gid = c->own_qp->Gid(static_cast<uint8_t>(local->gid.index));
  if (!gid.ok()) return refuse(gid.status()), false;
  absl::StatusOr<platform::RemoteQp> remote = ToRemote(req.endpoint());
  if (!remote.ok()) return refuse(remote.status()), false;
  c->remote = *remote;
  const uint32_t psn = RandomPsn();
  absl::Status s = c->own_qp->Connect(c->remote, local->use_grh,
                                      static_cast<uint8_t>(local->gid.index), psn,
                                      static_cast<uint8_t>(req.traffic_class()),
                                      static_cast<uint8_t>(req.service_level()));
  if (s.ok()) s = post_receives(*c->own_qp);
  if (!s.ok()) return refuse(s), false;
  v1::ControlMessage reply;
  *reply.mutable_ready()->mutable_endpoint() = Describe(*c->own_qp, *local, *gid, psn);
  return platform::WriteMessage(control, reply, absl::Now() + t.setup).ok();
}

// SEND: a receive reposted for every one consumed until the client is
// done. The CQ is polled in a bare loop; the control connection (the
// client's Done) and the clock are looked at only every kPollsPerCheck
// empty polls: a poll() syscall and a clock read per CQ poll capped the
// receive rate of small messages (perftest's loop makes neither).
void RepostReceives(platform::VerbsQp& qp, const v1::TransferRequest& req, int control,
                    absl::Time until) {
  std::vector<uint64_t> ids;
  ids.reserve(platform::VerbsQp::kMaxPoll);
  constexpr uint32_t kPollsPerCheck = 4096;
  uint32_t since_check = 0;
  while (true) {
    ids.clear();
    absl::StatusOr<int> n = qp.Poll(platform::VerbsQp::kMaxPoll, &ids);
    if (!n.ok()) break;
    if (!ids.empty()) {
      (void)qp.PostRecvs(req.size(), ids);  // one call for the batch
      continue;
    }
    if (++since_check < kPollsPerCheck) continue;
    since_check = 0;
    if (absl::Now() >= until || ControlReadable(control)) break;
  }
}

}  // namespace

void ServeRdma(int control, const v1::TransferRequest& req, const Timeouts& t,
               const RdmaServeChoice& choice, const std::string& sys_root) {
  auto refuse = [&](const absl::Status& s) {
    v1::ControlMessage reply;
    reply.mutable_done()->set_error(std::string(s.message()));
    (void)platform::WriteMessage(control, reply, absl::Now() + t.setup);
  };
  // The address the client reached us on (an IPv4 client of the
  // dual-stack listener arrives as ::ffff:a.b.c.d).
  absl::StatusOr<std::string> ip = platform::LocalIp(control);
  if (!ip.ok()) return refuse(ip.status());
  absl::StatusOr<platform::Egress> iface = platform::InterfaceOf(*ip);
  if (!iface.ok()) return refuse(iface.status());
  if (choice.gpu >= 0 && req.op() == v1::WRITE_LAT) {
    return refuse(absl::InvalidArgumentError(
        "write_lat polls its buffer from the CPU: serve --gpu with the bandwidth operations"));
  }
  const uint32_t tx_depth = std::max<uint32_t>(req.tx_depth(), 1);
  // SEND needs receives posted before the first SEND can arrive (4x the
  // sender's depth): on the out-of-band path before Ready, on rdma_cm
  // before the accept.
  auto post_receives = [&](platform::VerbsQp& qp) -> absl::Status {
    if (req.op() != v1::SEND_BW) return absl::OkStatus();
    for (uint32_t i = 0; i < platform::RecvDepth(tx_depth); ++i) {
      absl::Status s = qp.PostRecv(req.size(), i);
      if (!s.ok()) return s;
    }
    return absl::OkStatus();
  };
  ServeConnection c;
  const bool connected =
      req.rdma_cm() ? AcceptCm(control, req, t, choice, *ip, post_receives, refuse, &c)
                    : ConnectOutOfBand(control, req, t, choice, *iface, post_receives, refuse, &c);
  if (!connected) return;
  platform::VerbsQp* qp = c.qp();
  // Our port's counters around our part of the run: the loaded direction's
  // drops and ECN marks land at the receiver, which for write/send is us.
  const CounterSource counter_source = RdmaCounterSource(sys_root, qp->device_name(), qp->port());
  const CounterWindow counters(counter_source, "server");
  auto add_counters = [&](v1::TransferDone* done) {
    std::string unread;
    for (v1::CounterDelta& d : counters.Finish(&unread)) *done->add_counters() = d;
    done->set_counters_unread(unread);
  };
  if (req.op() == v1::WRITE_LAT) {
    // As long as the ping-pong keeps moving (each wait has the idle
    // timeout), then the client's Done.
    (void)PingPong(*qp, c.remote, req.size(), PingPongPosts(req), false, t.idle, nullptr, 0);
    ServeOneWayEnd(control, absl::Now() + t.setup, add_counters);
    return;
  }
  // Bandwidth ops run for the duration from now.
  const absl::Time until = absl::Now() + absl::Seconds(req.duration_s()) + t.setup + t.idle;
  if (req.op() == v1::SEND_BW) RepostReceives(*qp, req, control, until);
  if (req.bidirectional() && (req.op() == v1::WRITE_BW || req.op() == v1::READ_BW)) {
    // Our half of a bidirectional run, once the client's QP is RTS (its
    // Go), toward the client; then our figures after the client's Done.
    ServeBidirectionalHalf(control, t, [&] {
      BwOutcome bw;
      BwLoop(*qp, c.remote, OpcodeOf(req.op()), req.size(), req.tx_depth(), req.duration_s(),
             t.idle, &bw);
      const BandwidthFigures f = bw.record.Figures(req.size());
      v1::TransferDone mine;
      mine.set_bytes(bw.record.count() * req.size());
      mine.set_first_ns(bw.record.first_post_ns());
      mine.set_last_ns(bw.record.last_ns());
      mine.set_peak_gbps(f.peak_gbps);
      if (!bw.status.ok()) mine.set_error(std::string(bw.status.message()));
      return mine;
    }, add_counters);
    return;
  }
  // WRITE/READ land in (or leave) our buffer without us: wait for Done.
  ServeOneWayEnd(control, until, add_counters);
}

}  // namespace nodeprobe::transfer
