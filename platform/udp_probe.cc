#include "platform/udp_probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <poll.h>
#include <sys/socket.h>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace nodeprobe::platform {

absl::StatusOr<sockaddr_in> Ipv4Address(const std::string& ip, uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  if (ip.empty()) {
    a.sin_addr.s_addr = htonl(INADDR_ANY);
  } else if (inet_pton(AF_INET, ip.c_str(), &a.sin_addr) != 1) {
    return absl::InvalidArgumentError(absl::StrCat("'", ip, "' is not an IPv4 address"));
  }
  return a;
}

std::string AddressString(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof(buf));
  return buf;
}

absl::StatusOr<DfUdpSocket> DfUdpSocket::Bind(const std::string& ip, uint16_t port) {
  absl::StatusOr<sockaddr_in> addr = Ipv4Address(ip, port);
  if (!addr.ok()) return addr.status();
  Fd fd(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return absl::ErrnoToStatus(errno, "socket");
  int probe = IP_PMTUDISC_PROBE;
  int one = 1;
  if (setsockopt(fd.get(), IPPROTO_IP, IP_MTU_DISCOVER, &probe, sizeof(probe)) != 0 ||
      setsockopt(fd.get(), IPPROTO_IP, IP_RECVERR, &one, sizeof(one)) != 0) {
    return absl::ErrnoToStatus(errno, "setsockopt IP_MTU_DISCOVER/IP_RECVERR");
  }
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&*addr), sizeof(*addr)) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("bind udp ", ip.empty() ? "*" : ip, ":", port));
  }
  return DfUdpSocket(std::move(fd));
}

uint16_t DfUdpSocket::port() const {
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  getsockname(fd_.get(), reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

absl::Status DfUdpSocket::SendTo(const sockaddr_in& to, const std::string& payload) {
  ssize_t n = sendto(fd_.get(), payload.data(), payload.size(), 0,
                     reinterpret_cast<const sockaddr*>(&to), sizeof(to));
  if (n < 0) {
    if (errno == EMSGSIZE) {
      return absl::OutOfRangeError("the local interface MTU is smaller than this datagram");
    }
    return absl::ErrnoToStatus(errno, absl::StrCat("sendto ", AddressString(to)));
  }
  return absl::OkStatus();
}

absl::StatusOr<UdpEvent> DfUdpSocket::Receive(absl::Time deadline) {
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) return absl::DeadlineExceededError("no reply");
    pollfd p{fd_.get(), POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    UdpEvent ev;
    if (p.revents & POLLERR) {
      char data[64];
      char control[512];
      sockaddr_in from{};
      iovec iov{data, sizeof(data)};
      msghdr msg{};
      msg.msg_name = &from;
      msg.msg_namelen = sizeof(from);
      msg.msg_iov = &iov;
      msg.msg_iovlen = 1;
      msg.msg_control = control;
      msg.msg_controllen = sizeof(control);
      if (recvmsg(fd_.get(), &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) continue;
      for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c != nullptr; c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != IPPROTO_IP || c->cmsg_type != IP_RECVERR) continue;
        auto* ee = reinterpret_cast<sock_extended_err*>(CMSG_DATA(c));
        ev.error = static_cast<int>(ee->ee_errno);
        ev.kind = ee->ee_errno == EMSGSIZE ? UdpEvent::kIcmpTooBig : UdpEvent::kIcmpOther;
        ev.mtu = static_cast<int>(ee->ee_info);
        if (ee->ee_origin == SO_EE_ORIGIN_ICMP) {
          ev.offender = AddressString(*reinterpret_cast<sockaddr_in*>(SO_EE_OFFENDER(ee)));
        }
        ev.from = from;
        return ev;
      }
      continue;
    }
    char buf[65536];
    sockaddr_in from{};
    socklen_t len = sizeof(from);
    ssize_t n = recvfrom(fd_.get(), buf, sizeof(buf), MSG_DONTWAIT,
                         reinterpret_cast<sockaddr*>(&from), &len);
    if (n < 0) continue;
    ev.kind = UdpEvent::kDatagram;
    ev.data.assign(buf, static_cast<size_t>(n));
    ev.from = from;
    return ev;
  }
}

}  // namespace nodeprobe::platform
