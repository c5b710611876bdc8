#include "probes/mtu/path_mtu.h"

#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <random>

#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/netlink_links.h"
#include "platform/rdma_sysfs.h"
#include "platform/route.h"
#include "platform/verbs_port.h"
#include "probes/rdma_devices/rdma_netdevs.h"

namespace nodeprobe::mtu {
namespace {

using platform::DfUdpSocket;
using platform::UdpEvent;

int InterfaceMtu(const std::string& name) {
  absl::StatusOr<std::vector<platform::NetLink>> links = platform::ReadLinks();
  if (!links.ok()) return 0;
  for (const auto& l : *links) {
    if (l.name == name) return l.mtu;
  }
  return 0;
}

// Active MTU of the RDMA port whose RoCE GIDs live on `netdev` (0: none,
// or no device to ask).
uint32_t RdmaActiveMtuOn(const std::string& netdev) {
  auto devs = platform::ReadRdmaDevices(platform::FileTree("/sys"));
  if (!devs.ok()) return 0;
  for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(*devs)) {
    if (std::find(p.netdevs.begin(), p.netdevs.end(), netdev) == p.netdevs.end()) continue;
    absl::StatusOr<uint32_t> mtu = platform::QueryActiveMtu(p.device, p.port);
    return mtu.ok() ? *mtu : 0;
  }
  return 0;
}

class Prober {
 public:
  Prober(DfUdpSocket* socket, sockaddr_in peer, const PathProbeOptions& o)
      : socket_(socket), peer_(peer), o_(o) {}

  // Sends `type` and waits for the reply whose seq matches.
  absl::StatusOr<v1::MtuDatagram> Exchange(v1::MtuDatagram msg, int ip_size,
                                           v1::MtuDatagram::Type want, SizeTry* t,
                                           bool patient = false) {
    // Patient: each try waits three times as long (a responder that a busy
    // host did not schedule for a second still answers in time).
    const absl::Duration per_try = patient ? 3 * o_.per_try : o_.per_try;
    for (int attempt = 0; attempt < o_.tries; ++attempt) {
      if (absl::Now() > o_.deadline) break;
      msg.set_seq(++seq_);
      ++sent_;
      absl::Status s = socket_->SendTo(peer_, EncodeDatagram(msg, ip_size));
      if (s.code() == absl::StatusCode::kOutOfRange) {
        t->icmp_mtu = -1;  // the local interface refused it
        return absl::OutOfRangeError("local MTU");
      }
      if (!s.ok()) return s;
      absl::Time until = std::min(o_.deadline, absl::Now() + per_try);
      while (true) {
        absl::StatusOr<UdpEvent> ev = socket_->Receive(until);
        if (!ev.ok()) break;  // this try timed out
        if (ev->kind == UdpEvent::kIcmpTooBig) {
          t->icmp_mtu = ev->mtu;
          t->hop = ev->offender;
          return absl::OutOfRangeError("fragmentation needed");
        }
        if (ev->kind != UdpEvent::kDatagram) continue;
        absl::StatusOr<v1::MtuDatagram> reply = DecodeDatagram(ev->data);
        if (reply.ok() && reply->type() == want && reply->seq() == seq_) {
          t->arrived = true;
          return reply;
        }
      }
    }
    t->silent = true;
    return absl::DeadlineExceededError("no reply");
  }

  SizeTry Forward(int size, bool patient) {
    SizeTry t;
    v1::MtuDatagram msg;
    msg.set_type(v1::MtuDatagram::PROBE);
    msg.set_size(static_cast<uint32_t>(size));
    (void)Exchange(msg, size, v1::MtuDatagram::ACK, &t, patient);
    return t;
  }

  SizeTry Reverse(int size, uint64_t cookie, bool patient) {
    SizeTry t;
    v1::MtuDatagram msg;
    msg.set_type(v1::MtuDatagram::REVERSE);
    msg.set_size(static_cast<uint32_t>(size));
    msg.set_cookie(cookie);
    (void)Exchange(msg, 0, v1::MtuDatagram::REVERSE_DATA, &t, patient);
    return t;
  }

  int sent() const { return sent_; }

 private:
  DfUdpSocket* socket_;
  sockaddr_in peer_;
  const PathProbeOptions& o_;
  uint32_t seq_ = 0;
  int sent_ = 0;
};

}  // namespace

v1::PathMtu SearchPathMtu(int hi, const std::function<SizeTry(int)>& probe,
                          const std::function<SizeTry(int)>& confirm) {
  hi = std::min(hi, 65535);  // an IPv4 packet's length field is 16 bits
  v1::PathMtu out;
  out.set_iface_mtu(static_cast<uint32_t>(hi));
  auto note = [&](const SizeTry& t) {
    if (t.icmp_mtu > 0) {
      out.set_icmp_mtu(static_cast<uint32_t>(t.icmp_mtu));
      if (!t.hop.empty()) out.set_limiting_hop(t.hop);
    }
  };
  SizeTry top = probe(hi);
  if (!top.arrived && top.silent) top = confirm(hi);
  if (top.arrived) {
    out.set_path_mtu(static_cast<uint32_t>(hi));
    return out;
  }
  note(top);
  SizeTry low = probe(kMinIpv4Mtu);
  if (!low.arrived) low = confirm(kMinIpv4Mtu);
  if (!low.arrived) return out;  // path_mtu 0: nothing gets through
  int good = kMinIpv4Mtu, bad = hi;
  bool bad_silent = top.silent && top.icmp_mtu <= 0;  // how `bad` failed
  auto failed = [&](int size, const SizeTry& t) {
    bad = size;
    bad_silent = t.silent && t.icmp_mtu <= 0;
  };
  // An ICMP-reported MTU is the likely answer: try it first.
  if (top.icmp_mtu > good && top.icmp_mtu < bad) {
    SizeTry at = probe(top.icmp_mtu);
    note(at);
    if (at.arrived)
      good = top.icmp_mtu;
    else
      failed(top.icmp_mtu, at);
  }
  for (int confirmations = 0;; ++confirmations) {
    while (bad - good > 1) {
      const int mid = good + (bad - good) / 2;
      SizeTry t = probe(mid);
      note(t);
      if (t.arrived) {
        good = mid;
        continue;
      }
      failed(mid, t);
      if (t.icmp_mtu > good && t.icmp_mtu < bad) {
        SizeTry at = probe(t.icmp_mtu);
        note(at);
        if (at.arrived)
          good = t.icmp_mtu;
        else
          failed(t.icmp_mtu, at);
      }
    }
    if (!bad_silent || confirmations == 3) break;
    SizeTry again = confirm(bad);
    if (!again.arrived) break;  // it vanishes again: a real limit
    good = bad;                 // it was a lost datagram: search above it
    if (good == hi) break;
    failed(hi, top);  // hi failed (confirmed) at the start
  }
  out.set_path_mtu(static_cast<uint32_t>(good));
  out.set_blackhole(bad_silent && out.icmp_mtu() == 0);
  return out;
}

std::string EncodeDatagram(const v1::MtuDatagram& d, int ip_size) {
  std::string body = d.SerializeAsString();
  std::string out;
  out.push_back(static_cast<char>(body.size() >> 8));
  out.push_back(static_cast<char>(body.size() & 0xff));
  out += body;
  const int payload = ip_size - platform::kIpv4UdpOverhead;
  if (payload > static_cast<int>(out.size())) out.resize(static_cast<size_t>(payload), '\0');
  return out;
}

absl::StatusOr<v1::MtuDatagram> DecodeDatagram(const std::string& payload) {
  if (payload.size() < 2) return absl::InvalidArgumentError("short datagram");
  size_t len = (static_cast<uint8_t>(payload[0]) << 8) | static_cast<uint8_t>(payload[1]);
  v1::MtuDatagram d;
  if (len + 2 > payload.size() || !d.ParseFromArray(payload.data() + 2, static_cast<int>(len)) ||
      d.type() == v1::MtuDatagram::TYPE_UNSPECIFIED) {
    return absl::InvalidArgumentError("not a nodeprobe MTU datagram");
  }
  return d;
}

absl::StatusOr<v1::MtuReport> MeasurePathMtu(const PathProbeOptions& o) {
  absl::StatusOr<platform::Egress> egress = platform::EgressTo(o.peer_ip);
  if (!egress.ok()) return egress.status();
  const int iface_mtu = InterfaceMtu(egress->netdev);
  if (iface_mtu <= 0) {
    return absl::NotFoundError(absl::StrCat("cannot read the MTU of ", egress->netdev));
  }
  absl::StatusOr<sockaddr_in> peer = platform::Ipv4Address(o.peer_ip, o.port);
  if (!peer.ok()) return peer.status();
  absl::StatusOr<DfUdpSocket> socket = DfUdpSocket::Bind(egress->source_ip, 0);
  if (!socket.ok()) return socket.status();
  Prober prober(&*socket, *peer, o);

  v1::MtuReport report;
  report.set_peer(absl::StrCat(o.peer_ip, ":", o.port));
  report.set_egress_interface(egress->netdev);
  report.set_source_ip(egress->source_ip);
  SizeTry hello_try;
  v1::MtuDatagram hello;
  hello.set_type(v1::MtuDatagram::HELLO);
  absl::StatusOr<v1::MtuDatagram> reply =
      prober.Exchange(hello, 0, v1::MtuDatagram::HELLO_REPLY, &hello_try);
  if (!reply.ok()) {
    return absl::UnavailableError(absl::StrCat(
        "no answer from the MTU responder at ", report.peer(),
        " (is `nodeprobe mtu serve` or the agent running there, and UDP port ", o.port,
        " open?)"));
  }
  report.set_peer_iface_mtu(reply->iface_mtu());
  report.set_peer_rdma_active_mtu(reply->rdma_active_mtu());
  report.set_local_rdma_active_mtu(RdmaActiveMtuOn(egress->netdev));

  // A silent size is confirmed with the same probe, patiently.
  v1::PathMtu forward = SearchPathMtu(
      iface_mtu, [&](int size) { return prober.Forward(size, false); },
      [&](int size) { return prober.Forward(size, true); });
  forward.set_direction("here -> peer");
  const int peer_mtu = reply->iface_mtu() ? static_cast<int>(reply->iface_mtu()) : iface_mtu;
  const uint64_t cookie = reply->cookie();
  v1::PathMtu reverse = SearchPathMtu(
      peer_mtu, [&](int size) { return prober.Reverse(size, cookie, false); },
      [&](int size) { return prober.Reverse(size, cookie, true); });
  reverse.set_direction("peer -> here");
  // ICMP for the reverse direction goes to the peer, not here: what is
  // visible is whether the data arrived.
  reverse.set_blackhole(false);
  forward.set_probes_sent(static_cast<uint32_t>(prober.sent()));
  *report.add_paths() = forward;
  *report.add_paths() = reverse;
  if (absl::Now() > o.deadline) {
    return absl::DeadlineExceededError("path-MTU probing ran past its deadline");
  }
  return report;
}

absl::StatusOr<std::unique_ptr<MtuResponder>> MtuResponder::Start(const std::string& bind_ip,
                                                                 uint16_t port) {
  absl::StatusOr<DfUdpSocket> socket = DfUdpSocket::Bind(bind_ip, port);
  if (!socket.ok()) return socket.status();
  std::random_device rd;
  uint64_t secret = (uint64_t{rd()} << 32) ^ rd();
  auto responder = std::unique_ptr<MtuResponder>(new MtuResponder(*std::move(socket), secret));
  if (!responder->stop_.ok()) return absl::ErrnoToStatus(errno, "eventfd");
  return responder;
}

MtuResponder::MtuResponder(DfUdpSocket socket, uint64_t secret)
    : socket_(std::move(socket)), secret_(secret) {}

uint64_t MtuResponder::Cookie(const sockaddr_in& client) const {
  return absl::HashOf(secret_, client.sin_addr.s_addr, client.sin_port);
}

void MtuResponder::Stop() { stop_.Raise(); }

void MtuResponder::Serve() {
  while (true) {
    const platform::StopSignal::Woken woken = stop_.WaitReadable(socket_.fd(), -1);
    if (woken == platform::StopSignal::Woken::kStopped) return;
    if (woken != platform::StopSignal::Woken::kReadable) continue;
    absl::StatusOr<UdpEvent> ev = socket_.Receive(absl::Now() + absl::Milliseconds(10));
    if (!ev.ok() || ev->kind != UdpEvent::kDatagram) continue;
    absl::StatusOr<v1::MtuDatagram> in = DecodeDatagram(ev->data);
    if (!in.ok()) continue;  // strangers' datagrams are ignored
    v1::MtuDatagram out;
    out.set_seq(in->seq());
    int size = 0;
    switch (in->type()) {
      case v1::MtuDatagram::HELLO: {
        out.set_type(v1::MtuDatagram::HELLO_REPLY);
        out.set_cookie(Cookie(ev->from));
        absl::StatusOr<platform::Egress> back =
            platform::EgressTo(platform::AddressString(ev->from));
        if (back.ok()) {
          out.set_iface_mtu(static_cast<uint32_t>(InterfaceMtu(back->netdev)));
          out.set_rdma_active_mtu(RdmaActiveMtuOn(back->netdev));
        }
        break;
      }
      case v1::MtuDatagram::PROBE:
        out.set_type(v1::MtuDatagram::ACK);
        out.set_size(static_cast<uint32_t>(ev->data.size()) + platform::kIpv4UdpOverhead);
        break;
      case v1::MtuDatagram::REVERSE:
        // Large replies only to a client that proved it receives here.
        if (in->cookie() != Cookie(ev->from) || in->size() > 65535) continue;
        out.set_type(v1::MtuDatagram::REVERSE_DATA);
        out.set_size(in->size());
        size = static_cast<int>(in->size());
        break;
      default:
        continue;
    }
    (void)socket_.SendTo(ev->from, EncodeDatagram(out, size));
  }
}

}  // namespace nodeprobe::mtu
