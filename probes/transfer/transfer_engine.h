// File: transfer_engine.h
// The one transfer driver. A client runs a TransferRequest against a
// `nodeprobe transfer serve` peer; the transport (TCP here, RDMA through
// rdma_transport) moves the bytes, and the figures are computed the same
// way for both (transfer_stats.h). Every wait has a deadline, and a run that
// ends early keeps what it measured.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/transfer.pb.h"
#include "platform/socket.h"
#include "platform/stop_signal.h"
#include "platform/task_threads.h"

namespace nodeprobe::transfer {

struct Timeouts {
  absl::Duration setup = absl::Seconds(10);  // connect and handshake
  absl::Duration idle = absl::Seconds(5);    // no byte moves for this long
};

// One row's outcome: the figures measured, and why it stopped if it did.
struct RowOutcome {
  v1::TransferResult result;
  absl::Status status;  // OK, or what went wrong (result.partial is set)
  bool started = false;  // the server accepted the request
  // RDMA: how the client's buffer was registered ("host", "gpu dma-buf",
  // "gpu peermem"); empty when no buffer was registered.
  std::string memory;
  bool relaxed_ordering = false;  // RDMA: the buffer registered with it
  uint32_t inline_bytes = 0;      // RDMA: inline data the QP was granted
};

// Runs one message size against the server at `peer`.
RowOutcome RunTcpRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                     const Timeouts& timeouts);

// What a server lends strangers: a request whose buffers (streams x
// message size, both ways when bidirectional; RDMA: the registered buffer)
// exceed max_session_bytes, or one beyond max_sessions at a time, is
// refused (TRANSFER_REFUSED on the client, naming the limit) before
// anything is allocated. A stalled client's session ends at the idle
// timeout and frees what it held. Control connections beyond
// max_connections (sessions and strangers that have not yet sent a request,
// each on its own thread until the setup timeout) are closed on accept. So
// a server holds at most max_sessions x max_session_bytes of buffers (1 GiB
// by default) and max_connections threads, whatever peers ask or send
// (bench/stranger_flood.sh measures it).
struct ServerLimits {
  uint64_t max_session_bytes = 256ull << 20;
  int max_sessions = 4;
  int max_connections = 16;
};

// What a server serves RDMA sessions from: a named device (and port, GID
// index), or "" for the same route-based choice a client makes, for the
// address the client reached it on.
struct RdmaServeChoice {
  std::string device;
  uint32_t port = 0;
  std::optional<uint32_t> gid_index;
  int gpu = -1;  // the served buffer on this GPU; -1: host memory
};

// The bytes a request would make the server hold.
uint64_t SessionBytes(const v1::TransferRequest& req);

// Serves transfer requests on a listening socket until Stop().
class TransferServer {
 public:
  // bind_ip "" = every address; port 0 = any free port.
  static absl::StatusOr<std::unique_ptr<TransferServer>> Start(
      const std::string& bind_ip, uint16_t port, Timeouts timeouts = {},
      ServerLimits limits = {});
  ~TransferServer();

  uint16_t port() const { return port_; }
  // Before Serve(): the RDMA device/port/GID every RDMA session uses.
  void set_rdma_choice(RdmaServeChoice choice) { rdma_choice_ = std::move(choice); }
  // Before Serve(): where the counters sent back with each run are read
  // ("/sys"; a host's sysfs mounted elsewhere in a container, or a test's).
  void set_counter_root(std::string sys_root) { counter_root_ = std::move(sys_root); }
  // Blocks, serving each control connection on its own thread, until Stop().
  void Serve();
  // Safe from any thread or a signal-handling thread.
  void Stop();
  // Runs completed since start (for tests and the log line).
  int runs_served() const { return runs_served_.load(); }

 private:
  TransferServer(platform::Fd listener, uint16_t port, std::string bind_ip, Timeouts timeouts,
                 ServerLimits limits);
  void HandleControl(platform::Fd control);

  platform::Fd listener_;
  uint16_t port_;
  std::string bind_ip_;
  Timeouts timeouts_;
  ServerLimits limits_;
  RdmaServeChoice rdma_choice_;
  std::string counter_root_ = "/sys";
  std::atomic<int> sessions_{0};
  platform::StopSignal stop_;
  std::atomic<int> runs_served_{0};
  platform::TaskThreads connections_;
};

}  // namespace nodeprobe::transfer
