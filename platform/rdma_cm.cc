#include "platform/rdma_cm.h"

#include <arpa/inet.h>
#include <poll.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/udp_probe.h"

namespace nodeprobe::platform {
namespace {

// Waits for the next event on `channel` and checks it is `want`.
absl::StatusOr<rdma_cm_event*> WaitEvent(rdma_event_channel* channel, rdma_cm_event_type want,
                                         absl::Time deadline) {
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat("rdma_cm: timed out waiting for ", rdma_event_str(want)));
    }
    pollfd p{channel->fd, POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (rc <= 0) continue;
    rdma_cm_event* ev = nullptr;
    if (rdma_get_cm_event(channel, &ev) != 0) return absl::ErrnoToStatus(errno, "rdma_get_cm_event");
    if (ev->event == want) return ev;
    std::string got = rdma_event_str(ev->event);
    int status = ev->status;
    rdma_ack_cm_event(ev);
    return absl::UnavailableError(absl::StrCat("rdma_cm: expected ", rdma_event_str(want), ", got ",
                                               got, " (status ", status, ")"));
  }
}

absl::Status Expect(rdma_event_channel* channel, rdma_cm_event_type want, absl::Time deadline) {
  absl::StatusOr<rdma_cm_event*> ev = WaitEvent(channel, want, deadline);
  if (!ev.ok()) return ev.status();
  rdma_ack_cm_event(*ev);
  return absl::OkStatus();
}

// The read depths go in the connection's parameters: the client offers its
// device's limits, the server answers within what the client offered
// (rdma_accept's rule), and rdma_cm sets both QPs from them.
rdma_conn_param ConnParam(const std::string& private_data, ReadDepths reads) {
  rdma_conn_param p{};
  p.private_data = private_data.data();
  p.private_data_len = static_cast<uint8_t>(private_data.size());
  p.responder_resources = reads.responder;
  p.initiator_depth = reads.initiator;
  p.retry_count = 7;
  p.rnr_retry_count = 7;
  return p;
}

}  // namespace

std::string EncodeCmPrivateData(uint64_t addr, uint32_t rkey) {
  std::string out(16, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>(addr >> (8 * i));
  for (int i = 0; i < 4; ++i) out[8 + i] = static_cast<char>(rkey >> (8 * i));
  return out;
}

absl::StatusOr<RemoteQp> DecodeCmPrivateData(const void* data, size_t len) {
  if (data == nullptr || len < 12) {
    return absl::InvalidArgumentError("rdma_cm: the peer sent no buffer description");
  }
  const auto* b = static_cast<const uint8_t*>(data);
  RemoteQp r;
  for (int i = 0; i < 8; ++i) r.addr |= uint64_t{b[i]} << (8 * i);
  for (int i = 0; i < 4; ++i) r.rkey |= uint32_t{b[8 + i]} << (8 * i);
  return r;
}

absl::StatusOr<std::unique_ptr<CmConnection>> CmConnect(const std::string& peer_ip,
                                                        uint16_t port, size_t buffer_bytes,
                                                        const QpOptions& options,
                                                        absl::Time deadline, uint8_t tos) {
  absl::StatusOr<sockaddr_in> dst = Ipv4Address(peer_ip, port);
  if (!dst.ok()) return dst.status();
  auto c = std::make_unique<CmConnection>();
  c->channel.reset(rdma_create_event_channel());
  if (!c->channel) return absl::FailedPreconditionError("rdma_cm unavailable (no RDMA device?)");
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(c->channel.get(), &id, nullptr, RDMA_PS_TCP) != 0) {
    return absl::ErrnoToStatus(errno, "rdma_create_id");
  }
  c->id.reset(id);
  if (tos != 0 && rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos)) != 0) {
    return absl::ErrnoToStatus(errno, "rdma_set_option TOS");
  }
  const int ms = static_cast<int>(
      std::max<int64_t>(100, absl::ToInt64Milliseconds(deadline - absl::Now())));
  if (rdma_resolve_addr(id, nullptr, reinterpret_cast<sockaddr*>(&*dst), ms) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("rdma_resolve_addr ", peer_ip));
  }
  absl::Status s = Expect(c->channel.get(), RDMA_CM_EVENT_ADDR_RESOLVED, deadline);
  if (!s.ok()) return s;
  if (rdma_resolve_route(id, ms) != 0) return absl::ErrnoToStatus(errno, "rdma_resolve_route");
  s = Expect(c->channel.get(), RDMA_CM_EVENT_ROUTE_RESOLVED, deadline);
  if (!s.ok()) return s;
  absl::StatusOr<std::unique_ptr<VerbsQp>> qp = VerbsQp::OnCmId(id, buffer_bytes, options);
  if (!qp.ok()) return qp.status();
  c->qp = *std::move(qp);
  const std::string mine = EncodeCmPrivateData(c->qp->addr(), c->qp->rkey());
  rdma_conn_param param = ConnParam(
      mine, NegotiateReadDepths(c->qp->max_qp_init_rd_atom(), c->qp->max_qp_rd_atom(),
                                static_cast<uint32_t>(c->qp->max_qp_init_rd_atom())));
  if (rdma_connect(id, &param) != 0) return absl::ErrnoToStatus(errno, "rdma_connect");
  absl::StatusOr<rdma_cm_event*> ev = WaitEvent(c->channel.get(), RDMA_CM_EVENT_ESTABLISHED, deadline);
  if (!ev.ok()) return ev.status();
  absl::StatusOr<RemoteQp> remote = DecodeCmPrivateData((*ev)->param.conn.private_data,
                                                        (*ev)->param.conn.private_data_len);
  rdma_ack_cm_event(*ev);
  if (!remote.ok()) return remote.status();
  c->remote = *remote;
  return c;
}

absl::StatusOr<std::unique_ptr<CmListener>> CmListener::Listen(const std::string& bind_ip,
                                                               uint16_t port) {
  absl::StatusOr<sockaddr_in> addr = Ipv4Address(bind_ip, port);
  if (!addr.ok()) return addr.status();
  std::unique_ptr<CmListener> l(new CmListener());
  l->channel_.reset(rdma_create_event_channel());
  if (!l->channel_) return absl::FailedPreconditionError("rdma_cm unavailable (no RDMA device?)");
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(l->channel_.get(), &id, nullptr, RDMA_PS_TCP) != 0) {
    return absl::ErrnoToStatus(errno, "rdma_create_id");
  }
  l->id_.reset(id);
  if (rdma_bind_addr(id, reinterpret_cast<sockaddr*>(&*addr)) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("rdma_bind_addr ", bind_ip));
  }
  if (rdma_listen(id, 4) != 0) return absl::ErrnoToStatus(errno, "rdma_listen");
  return l;
}

uint16_t CmListener::port() const { return ntohs(rdma_get_src_port(id_.get())); }

absl::StatusOr<std::unique_ptr<CmConnection>> CmListener::Accept(
    size_t buffer_bytes, const QpOptions& options, absl::Time deadline,
    const std::function<absl::Status(VerbsQp&)>& before_accept) {
  absl::StatusOr<rdma_cm_event*> ev =
      WaitEvent(channel_.get(), RDMA_CM_EVENT_CONNECT_REQUEST, deadline);
  if (!ev.ok()) return ev.status();
  auto c = std::make_unique<CmConnection>();
  c->id.reset((*ev)->id);  // the new connection's id (on the listener's channel)
  absl::StatusOr<RemoteQp> remote = DecodeCmPrivateData((*ev)->param.conn.private_data,
                                                        (*ev)->param.conn.private_data_len);
  const uint8_t client_initiator = (*ev)->param.conn.initiator_depth;
  const uint8_t client_responder = (*ev)->param.conn.responder_resources;
  rdma_ack_cm_event(*ev);
  if (!remote.ok()) return remote.status();
  c->remote = *remote;
  absl::StatusOr<std::unique_ptr<VerbsQp>> qp = VerbsQp::OnCmId(c->id.get(), buffer_bytes, options);
  if (!qp.ok()) return qp.status();
  c->qp = *std::move(qp);
  if (before_accept) {
    if (absl::Status s = before_accept(*c->qp); !s.ok()) {
      (void)rdma_reject(c->id.get(), nullptr, 0);
      return s;
    }
  }
  const std::string mine = EncodeCmPrivateData(c->qp->addr(), c->qp->rkey());
  ReadDepths reads = NegotiateReadDepths(c->qp->max_qp_init_rd_atom(), c->qp->max_qp_rd_atom(),
                                         client_responder);
  reads.responder = std::min(reads.responder, client_initiator);
  rdma_conn_param param = ConnParam(mine, reads);
  if (rdma_accept(c->id.get(), &param) != 0) return absl::ErrnoToStatus(errno, "rdma_accept");
  absl::Status s = Expect(channel_.get(), RDMA_CM_EVENT_ESTABLISHED, deadline);
  if (!s.ok()) return s;
  return c;
}

}  // namespace nodeprobe::platform
