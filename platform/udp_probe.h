// File: udp_probe.h
// UDP sockets for path-MTU probing: every datagram leaves with Don't
// Fragment set and IP_PMTUDISC_PROBE (the kernel neither fragments nor
// clamps to its cached path MTU), and ICMP errors come back through
// IP_RECVERR so "fragmentation needed" names the hop and its MTU. IPv4.
#pragma once

#include <netinet/in.h>

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "platform/socket.h"

namespace nodeprobe::platform {

// IPv4 + UDP headers: an IP packet of N bytes carries N - 28 bytes of data.
inline constexpr int kIpv4UdpOverhead = 28;

struct UdpEvent {
  enum Kind { kDatagram, kIcmpTooBig, kIcmpOther } kind = kDatagram;
  std::string data;
  sockaddr_in from{};
  int mtu = 0;          // kIcmpTooBig: the MTU the error reports
  std::string offender;  // address that sent the ICMP error ("" when local)
  int error = 0;         // errno of the error-queue entry
};

class DfUdpSocket {
 public:
  // Bound to ip:port ("" = any, 0 = any free port).
  static absl::StatusOr<DfUdpSocket> Bind(const std::string& ip, uint16_t port);
  uint16_t port() const;
  int fd() const { return fd_.get(); }

  // OUT_OF_RANGE when the local interface cannot carry the datagram
  // (EMSGSIZE); other errors as they come.
  absl::Status SendTo(const sockaddr_in& to, const std::string& payload);
  // The next datagram or ICMP error, or DEADLINE_EXCEEDED.
  absl::StatusOr<UdpEvent> Receive(absl::Time deadline);

 private:
  explicit DfUdpSocket(Fd fd) : fd_(std::move(fd)) {}
  Fd fd_;
};

absl::StatusOr<sockaddr_in> Ipv4Address(const std::string& ip, uint16_t port);
std::string AddressString(const sockaddr_in& a);

}  // namespace nodeprobe::platform
