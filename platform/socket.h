// File: socket.h
// TCP sockets where every wait has a deadline. Errors say which peer and
// what happened, with codes the transfer engine maps to findings:
//   UNAVAILABLE        connection refused / reset / closed by the peer
//   DEADLINE_EXCEEDED  no progress before the deadline
//   INVALID_ARGUMENT   bad address
#pragma once

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include <google/protobuf/message_lite.h>

namespace nodeprobe::platform {

// Owns a file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd();
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }
  bool valid() const { return fd_ >= 0; }
  void reset();

 private:
  int fd_ = -1;
};

struct HostPort {
  std::string host;
  uint16_t port = 0;
};
// "10.0.0.2:18515", "[fd00::2]:18515", "gpu02:18515"; `default_port` when
// the port is omitted (0: a port is required).
absl::StatusOr<HostPort> ParseHostPort(const std::string& text,
                                       uint16_t default_port = 0);

// Listening socket on bind_ip ("" = all IPv4/IPv6) and port (0 = any).
absl::StatusOr<Fd> Listen(const std::string& bind_ip, uint16_t port);
absl::StatusOr<uint16_t> LocalPort(int fd);
// The local address of a connected socket as text; an IPv4 peer on a
// dual-stack listener (::ffff:10.0.0.2) is given as plain IPv4.
absl::StatusOr<std::string> LocalIp(int fd);
// Waits for a connection until `deadline`.
absl::StatusOr<Fd> Accept(int listen_fd, absl::Time deadline);
absl::StatusOr<Fd> Connect(const HostPort& peer, absl::Time deadline);

// Send/receive exactly `len` bytes; each call fails if no byte moves for
// `idle` or the deadline passes.
absl::Status SendAll(int fd, const void* buf, size_t len, absl::Time deadline);
absl::Status RecvAll(int fd, void* buf, size_t len, absl::Time deadline);
// Receives what is available (at most len), waiting until deadline for the
// first byte. Returns 0 on an orderly close by the peer.
absl::StatusOr<size_t> RecvSome(int fd, void* buf, size_t len, absl::Time deadline);

// Length-prefixed protobuf messages (4-byte big-endian length). Messages
// over kMaxMessageBytes are refused before they are read.
inline constexpr uint32_t kMaxMessageBytes = 1 << 20;
absl::Status WriteMessage(int fd, const google::protobuf::MessageLite& msg,
                          absl::Time deadline);
absl::Status ReadMessage(int fd, google::protobuf::MessageLite* msg,
                         absl::Time deadline);

void SetNoDelay(int fd);

}  // namespace nodeprobe::platform
