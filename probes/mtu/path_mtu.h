// File: path_mtu.h
// Measures the largest IP packet that reaches a peer with Don't Fragment
// set, in both directions, against the peer's responder (`nodeprobe mtu
// serve`, also part of the agent). Binary search between 576 bytes and the
// egress interface's MTU; each size is retried so a lost packet is not taken
// for a limit; an ICMP "fragmentation needed" names the hop and lets the
// search jump to the MTU it reports; sizes that vanish with no ICMP at all
// are a black hole. Only the peer the user named is ever sent anything.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/mtu.pb.h"
#include "platform/stop_signal.h"
#include "platform/udp_probe.h"

namespace nodeprobe::mtu {

inline constexpr uint16_t kDefaultMtuPort = 18516;
inline constexpr int kMinIpv4Mtu = 576;

struct PathProbeOptions {
  std::string peer_ip;
  uint16_t port = kDefaultMtuPort;
  absl::Duration per_try = absl::Milliseconds(300);
  int tries = 3;
  absl::Time deadline = absl::InfiniteFuture();
};

// The outcome of probing one size.
struct SizeTry {
  bool arrived = false;
  int icmp_mtu = 0;     // a "too big" error named this MTU (-1: the local interface refused)
  std::string hop;      // ... and came from this router ("" = local)
  bool silent = false;  // every try vanished without an error
};

// The largest size in [576, hi] for which `probe` arrives. A size that
// vanished without an ICMP error is probed once more, patiently
// (`confirm`), before it bounds the answer: a datagram lost on a busy host
// or a lossy hop is not a blackhole (nothing is FAIL from one sample);
// confirmed, the search goes on above it. `blackhole`: the limit is a
// confirmed silent drop with no ICMP error seen.
v1::PathMtu SearchPathMtu(int hi, const std::function<SizeTry(int)>& probe,
                          const std::function<SizeTry(int)>& confirm);

// Fills peer, egress, both PathMtu entries and the peer's interface MTU.
absl::StatusOr<v1::MtuReport> MeasurePathMtu(const PathProbeOptions& options);

// Answers probes until Stop().
class MtuResponder {
 public:
  static absl::StatusOr<std::unique_ptr<MtuResponder>> Start(const std::string& bind_ip,
                                                             uint16_t port);
  uint16_t port() const { return socket_.port(); }
  void Serve();
  void Stop();

 private:
  MtuResponder(platform::DfUdpSocket socket, uint64_t secret);
  uint64_t Cookie(const sockaddr_in& client) const;

  platform::DfUdpSocket socket_;
  uint64_t secret_;
  platform::StopSignal stop_;
};

// Datagram encoding: 2-byte length, the MtuDatagram, zero padding so the IP
// packet is `ip_size` bytes (never shorter than the header needs).
std::string EncodeDatagram(const v1::MtuDatagram& d, int ip_size);
absl::StatusOr<v1::MtuDatagram> DecodeDatagram(const std::string& payload);

}  // namespace nodeprobe::mtu
