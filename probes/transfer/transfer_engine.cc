// File: transfer_engine.cc
// TCP transport: stream_bw is measured at the receiver (the server), like
// iperf3's receiver figure, so socket buffers filling at the sender do not
// inflate it; rr_lat is measured at the client, one round trip per message.
#include "probes/transfer/transfer_engine.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/mutex.h"
#include "platform/route.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/rdma_transport.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::transfer {
namespace {

using platform::Fd;

// The receiver's view of a stream_bw run, shared by its stream threads.
struct ReceiveTally {
  std::atomic<uint64_t> bytes{0};
  std::atomic<int64_t> first_ns{0};
  std::atomic<int64_t> last_ns{0};
  platform::Mutex mu;
  absl::Status error ABSL_GUARDED_BY(mu);  // the first, if any

  void Record(uint64_t n, int64_t now) {
    int64_t zero = 0;
    first_ns.compare_exchange_strong(zero, now);
    bytes.fetch_add(n);
    int64_t last = last_ns.load();
    while (now > last && !last_ns.compare_exchange_weak(last, now)) {}
  }
  void Fail(absl::Status s) {
    platform::MutexLock l(&mu);
    if (error.ok()) error = std::move(s);
  }
  absl::Status FirstError() {
    platform::MutexLock l(&mu);
    return error;
  }
};

// The receiver reads in chunks of at least this, whatever the sender's
// message size: fewer syscalls per byte (iperf3 reads 128 KiB).
constexpr size_t kReceiveChunk = 256 * 1024;

// Streams are served from one thread each way, trying every socket and
// polling only when none could move (as iperf3 does): on a 2-core host a
// thread per stream costs more in switches than it gains, and a stream that
// keeps up costs one syscall per call.
absl::Status WaitAny(std::vector<pollfd>* pfds, int64_t last_progress_ns, int64_t idle_ns,
                     const char* what) {
  while (true) {
    const int64_t left_ms = (last_progress_ns + idle_ns - NowNs()) / 1000000;
    if (left_ms <= 0) {
      return absl::DeadlineExceededError(absl::StrCat("nothing could ", what, " for ",
                                                      idle_ns / 1000000, " ms"));
    }
    int rc = poll(pfds->data(), pfds->size(), static_cast<int>(std::min<int64_t>(left_ms, 1000)));
    if (rc > 0) return absl::OkStatus();
    if (rc < 0 && errno != EINTR) return absl::ErrnoToStatus(errno, "poll");
  }
}

// One stream needs no poll at all: a blocking call per chunk (iperf3's
// shape), with the idle timeout as the socket's own timeout, instead of a
// non-blocking call, EAGAIN and poll each time the socket buffer fills
// (three syscalls where one does).
bool BlockingSingleStream(const std::vector<int>& fds, int option, absl::Duration idle) {
  if (fds.size() != 1) return false;
  const timeval tv = absl::ToTimeval(idle);
  return setsockopt(fds[0], SOL_SOCKET, option, &tv, sizeof(tv)) == 0;
}

// Reads every stream until each sender closes it (or nothing moves).
void ReceiveStreams(const std::vector<int>& fds, size_t size, absl::Duration idle,
                    ReceiveTally* tally) {
  std::vector<char> buf(std::max<size_t>(size, kReceiveChunk));
  std::vector<pollfd> pfds;
  for (int fd : fds) pfds.push_back({fd, POLLIN, 0});
  const bool blocking = BlockingSingleStream(fds, SO_RCVTIMEO, idle);
  size_t open = fds.size();
  int64_t last_progress = NowNs();
  const int64_t idle_ns = absl::ToInt64Nanoseconds(idle);
  while (open > 0) {
    bool moved = false;
    for (pollfd& p : pfds) {
      if (p.fd < 0) continue;
      ssize_t n = recv(p.fd, buf.data(), buf.size(), blocking ? 0 : MSG_DONTWAIT);
      if (n > 0) {
        const int64_t now = NowNs();
        tally->Record(static_cast<uint64_t>(n), now);
        last_progress = now;
        moved = true;
      } else if (n == 0) {
        p.fd = -1;  // this sender is done; poll skips negative fds
        --open;
        moved = true;
      } else if (blocking && errno == EAGAIN) {
        tally->Fail(absl::DeadlineExceededError(absl::StrCat(
            "nothing could be received for ", absl::FormatDuration(idle))));
        return;
      } else if (errno != EAGAIN && errno != EINTR) {
        tally->Fail(absl::UnavailableError(
            absl::StrCat("recv: ", strerror(errno), " (the peer went away)")));
        return;
      }
    }
    if (moved || open == 0) continue;
    absl::Status s = WaitAny(&pfds, last_progress, idle_ns, "be received");
    if (!s.ok()) {
      tally->Fail(s);
      return;
    }
  }
}

// What the kernel says about a sending stream (TCP_INFO): segments it had
// to retransmit, and its smoothed round-trip time.
struct TcpHealth {
  std::atomic<uint64_t> retransmits{0};
  std::atomic<uint64_t> rtt_us_sum{0};
  std::atomic<uint32_t> streams{0};
  void Record(int fd) {
    tcp_info info{};
    socklen_t len = sizeof(info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) return;
    retransmits += info.tcpi_total_retrans;
    rtt_us_sum += info.tcpi_rtt;
    ++streams;
  }
};

// Sends `size`-byte messages on every stream until `end_ns`, then ends
// the streams (a message cut at the end still counts at the receiver).
absl::Status SendStreams(const std::vector<int>& fds, size_t size, int64_t end_ns,
                         absl::Duration idle, std::atomic<uint64_t>* sent = nullptr,
                         TcpHealth* health = nullptr) {
  std::vector<char> buf(size, 'n');
  std::vector<size_t> offset(fds.size(), 0);
  std::vector<pollfd> pfds;
  for (int fd : fds) pfds.push_back({fd, POLLOUT, 0});
  const bool blocking = BlockingSingleStream(fds, SO_SNDTIMEO, idle);
  int64_t last_progress = NowNs();
  const int64_t idle_ns = absl::ToInt64Nanoseconds(idle);
  absl::Status status;
  while (NowNs() < end_ns && status.ok()) {
    bool moved = false;
    for (size_t i = 0; i < fds.size(); ++i) {
      ssize_t n = send(fds[i], buf.data() + offset[i], size - offset[i],
                       MSG_NOSIGNAL | (blocking ? 0 : MSG_DONTWAIT));
      if (n > 0) {
        offset[i] += static_cast<size_t>(n);
        if (offset[i] == size) {
          offset[i] = 0;
          if (sent) *sent += size;
        }
        moved = true;
      } else if (n < 0 && blocking && errno == EAGAIN) {
        status = absl::DeadlineExceededError(
            absl::StrCat("nothing could be sent for ", absl::FormatDuration(idle)));
        break;
      } else if (n < 0 && errno != EAGAIN && errno != EINTR) {
        status = absl::UnavailableError(
            absl::StrCat("send: ", strerror(errno), " (the peer went away)"));
        break;
      }
    }
    if (moved) {
      last_progress = NowNs();
    } else if (status.ok()) {
      status = WaitAny(&pfds, last_progress, idle_ns, "be sent");
    }
  }
  for (int fd : fds) {
    if (health && status.ok()) health->Record(fd);
    shutdown(fd, SHUT_WR);
  }
  return status;
}

// Samples the tally every interval: TCP has no per-message completion, so
// the peak is the best interval, and the intervals are the run's spread.
// Sampling starts with the first byte (the wait for the client is not the
// link's rate).
std::vector<double> SampleIntervals(ReceiveTally* tally, const std::atomic<bool>* done,
                                    int64_t* start_unix_ns) {
  std::vector<double> out;
  while (!done->load() && tally->bytes.load() == 0) usleep(1000);
  uint64_t last_bytes = tally->bytes.load();
  int64_t last_t = NowNs();
  *start_unix_ns = UnixNsOfMonotonic(last_t);
  while (!done->load()) {
    usleep(kIntervalNs / 1000);
    const uint64_t b = tally->bytes.load();
    const int64_t t = NowNs();
    // The last, partial interval after the sender stopped is not a rate.
    if (done->load()) break;
    if (out.size() < kMaxIntervals) out.push_back(Gbps(b - last_bytes, t - last_t));
    last_bytes = b;
    last_t = t;
  }
  return out;
}

std::optional<v1::ControlMessage> ServeStreamBw(Fd data_listener, const v1::TransferRequest& req,
                                               const Timeouts& t) {
  std::vector<Fd> conns;
  for (uint32_t i = 0; i < req.streams(); ++i) {
    absl::StatusOr<Fd> c = platform::Accept(data_listener.get(), absl::Now() + t.setup);
    if (!c.ok()) return std::nullopt;  // the client gave up; it reports why
    conns.push_back(*std::move(c));
  }
  ReceiveTally tally;
  std::atomic<bool> done{false};
  std::vector<double> intervals;
  int64_t intervals_start = 0;
  std::thread sampler([&] { intervals = SampleIntervals(&tally, &done, &intervals_start); });
  std::vector<int> fds;
  for (Fd& c : conns) fds.push_back(c.get());
  // --bidirectional: the server sends for the same duration on every stream.
  std::thread sender;
  if (req.bidirectional()) {
    const int64_t end = NowNs() + static_cast<int64_t>(req.duration_s() * 1e9);
    sender = std::thread([&fds, size = req.size(), end, idle = t.idle] {
      (void)SendStreams(fds, size, end, idle);  // the client reports what arrived
    });
  }
  ReceiveStreams(fds, req.size(), t.idle, &tally);
  if (sender.joinable()) sender.join();
  done = true;
  sampler.join();
  v1::ControlMessage msg;
  v1::TransferDone* d = msg.mutable_done();
  d->set_bytes(tally.bytes.load());
  d->set_first_ns(tally.first_ns.load());
  d->set_last_ns(tally.last_ns.load());
  d->set_peak_gbps(intervals.empty() ? 0 : *std::max_element(intervals.begin(), intervals.end()));
  for (double g : intervals) d->add_interval_gbps(g);
  d->set_intervals_start_unix_ns(intervals_start);
  if (absl::Status e = tally.FirstError(); !e.ok()) d->set_error(std::string(e.message()));
  return msg;
}

std::optional<v1::ControlMessage> ServeRrLat(Fd data_listener, const v1::TransferRequest& req,
                                            const Timeouts& t) {
  absl::StatusOr<Fd> c = platform::Accept(data_listener.get(), absl::Now() + t.setup);
  if (!c.ok()) return std::nullopt;
  platform::SetNoDelay(c->get());
  std::vector<char> buf(req.size());
  uint64_t bytes = 0;
  while (true) {
    absl::StatusOr<size_t> first =
        platform::RecvSome(c->get(), buf.data(), buf.size(), absl::Now() + t.idle);
    if (!first.ok() || *first == 0) break;
    if (*first < buf.size() &&
        !platform::RecvAll(c->get(), buf.data() + *first, buf.size() - *first,
                           absl::Now() + t.idle).ok()) {
      break;
    }
    if (!platform::SendAll(c->get(), buf.data(), buf.size(), absl::Now() + t.idle).ok()) {
      break;
    }
    bytes += buf.size();
  }
  v1::ControlMessage msg;
  msg.mutable_done()->set_bytes(bytes);
  return msg;
}

absl::Status Validate(const v1::TransferRequest& req) {
  if (req.transport() == v1::RDMA) {
    if (req.op() != v1::WRITE_BW && req.op() != v1::READ_BW && req.op() != v1::SEND_BW &&
        req.op() != v1::WRITE_LAT) {
      return absl::FailedPreconditionError("RDMA supports write_bw, read_bw, send_bw, write_lat");
    }
    if (req.bidirectional() && req.op() != v1::WRITE_BW && req.op() != v1::READ_BW) {
      return absl::InvalidArgumentError("--bidirectional applies to write_bw and read_bw");
    }
  } else if (req.transport() != v1::TCP ||
             (req.op() != v1::STREAM_BW && req.op() != v1::RR_LAT)) {
    return absl::FailedPreconditionError("TCP supports stream_bw and rr_lat");
  }
  if (req.size() == 0 || req.size() > (64u << 20)) {
    return absl::InvalidArgumentError("message size must be 1 B .. 64 MiB");
  }
  if (req.op() == v1::STREAM_BW && (req.streams() == 0 || req.streams() > 128)) {
    return absl::InvalidArgumentError("streams must be 1 .. 128");
  }
  if (req.transport() == v1::TCP && req.bidirectional() && req.op() != v1::STREAM_BW) {
    return absl::InvalidArgumentError("--bidirectional applies to stream_bw");
  }
  return absl::OkStatus();
}

// Client side of stream_bw: N senders for the duration, then the server's
// receive figures.
RowOutcome ClientStreamBw(int control, const platform::HostPort& data_peer,
                          const v1::TransferRequest& req, const Timeouts& t) {
  RowOutcome out;
  out.result.set_size(req.size());
  std::vector<Fd> conns;
  for (uint32_t i = 0; i < req.streams(); ++i) {
    absl::StatusOr<Fd> c = platform::Connect(data_peer, absl::Now() + t.setup);
    if (!c.ok()) {
      out.status = c.status();
      return out;
    }
    conns.push_back(*std::move(c));
  }
  std::atomic<uint64_t> sent{0};
  absl::Status send_error;
  const int64_t start = NowNs();
  const int64_t end = start + static_cast<int64_t>(req.duration_s() * 1e9);
  // --bidirectional: the reverse direction is measured here, at its receiver.
  ReceiveTally reverse;
  std::vector<int> fds;
  for (Fd& c : conns) fds.push_back(c.get());
  std::thread receiver;
  if (req.bidirectional()) {
    receiver = std::thread([&] { ReceiveStreams(fds, req.size(), t.idle, &reverse); });
  }
  TcpHealth health;
  send_error = SendStreams(fds, req.size(), end, t.idle, &sent, &health);
  if (receiver.joinable()) receiver.join();
  if (send_error.ok()) send_error = reverse.FirstError();
  const int64_t stop = NowNs();
  v1::ControlMessage msg;
  absl::Status read = send_error.ok()
                          ? platform::ReadMessage(control, &msg, absl::Now() + t.setup + t.idle)
                          : send_error;
  if (read.ok() && msg.has_done() && msg.done().error().empty()) {
    const v1::TransferDone& d = msg.done();
    BandwidthFigures f = ComputeBandwidthFromBytes(d.bytes(), d.first_ns(), d.last_ns());
    // Bidirectional: like perftest -b, the figure is the sum of both ways.
    BandwidthFigures r = ComputeBandwidthFromBytes(reverse.bytes.load(), reverse.first_ns.load(),
                                                   reverse.last_ns.load());
    out.result.set_bytes(d.bytes() + reverse.bytes.load());
    out.result.set_iterations(out.result.bytes() / req.size());
    out.result.set_seconds(f.seconds);
    out.result.set_bw_avg_gbps(f.avg_gbps + r.avg_gbps);
    out.result.set_bw_peak_gbps(std::max(d.peak_gbps(), f.avg_gbps) + r.avg_gbps);
    out.result.set_bw_avg_mibps(f.avg_mibps + r.avg_mibps);
    out.result.set_msg_rate_mpps(f.seconds > 0 ? out.result.iterations() / f.seconds / 1e6 : 0);
    SetIntervals({d.interval_gbps().begin(), d.interval_gbps().end()}, &out.result);
    out.result.set_intervals_start_unix_ns(d.intervals_start_unix_ns());
    AddServerCounters(d, &out.result);
    out.result.set_tcp_retransmits(health.retransmits.load());
    if (health.streams.load() > 0) {
      out.result.set_tcp_rtt_us(static_cast<double>(health.rtt_us_sum.load()) /
                                health.streams.load());
    }
    return out;
  }
  // Keep what the sender saw: bytes handed to the kernel, not proof of
  // delivery, and said so by `partial`.
  BandwidthFigures f = ComputeBandwidthFromBytes(sent.load(), start, stop);
  out.result.set_partial(true);
  out.result.set_bytes(sent.load());
  out.result.set_seconds(f.seconds);
  out.result.set_bw_avg_gbps(f.avg_gbps);
  out.result.set_bw_avg_mibps(f.avg_mibps);
  out.status = !read.ok() ? read
               : msg.has_done() ? absl::UnavailableError(absl::StrCat(
                                      "server: ", msg.done().error()))
                                : absl::InternalError("unexpected reply from the server");
  return out;
}

RowOutcome ClientRrLat(const platform::HostPort& data_peer,
                       const v1::TransferRequest& req, const Timeouts& t) {
  RowOutcome out;
  out.result.set_size(req.size());
  absl::StatusOr<Fd> c = platform::Connect(data_peer, absl::Now() + t.setup);
  if (!c.ok()) {
    out.status = c.status();
    return out;
  }
  platform::SetNoDelay(c->get());
  std::vector<char> buf(req.size(), 'l');
  std::vector<int64_t> rtts;
  const uint64_t iters = req.iterations() ? req.iterations() : 1000;
  const int64_t end = req.iterations() ? INT64_MAX
                                       : NowNs() + static_cast<int64_t>(req.duration_s() * 1e9);
  const int64_t start = NowNs();
  for (uint64_t i = 0; i < req.warmup() + iters && NowNs() < end; ++i) {
    int64_t t0 = NowNs();
    absl::Status s = platform::SendAll(c->get(), buf.data(), buf.size(), absl::Now() + t.idle);
    if (s.ok()) s = platform::RecvAll(c->get(), buf.data(), buf.size(), absl::Now() + t.idle);
    if (!s.ok()) {
      out.status = s;
      out.result.set_partial(true);
      break;
    }
    if (i >= req.warmup()) rtts.push_back(NowNs() - t0);
  }
  out.result.set_iterations(rtts.size());
  out.result.set_bytes(rtts.size() * req.size() * 2);
  out.result.set_seconds(static_cast<double>(NowNs() - start) / 1e9);
  *out.result.mutable_latency() = ComputeLatency(rtts);
  return out;
}

}  // namespace

RowOutcome RunTcpRow(const platform::HostPort& peer, const v1::TransferRequest& req,
                     const Timeouts& t) {
  RowOutcome out;
  out.result.set_size(req.size());
  absl::StatusOr<Fd> control = platform::Connect(peer, absl::Now() + t.setup);
  if (!control.ok()) {
    out.status = control.status();
    return out;
  }
  v1::ControlMessage msg;
  *msg.mutable_request() = req;
  absl::Status s = platform::WriteMessage(control->get(), msg, absl::Now() + t.setup);
  v1::ControlMessage reply;
  if (s.ok()) s = platform::ReadMessage(control->get(), &reply, absl::Now() + t.setup);
  if (s.ok() && reply.has_done()) {
    s = absl::FailedPreconditionError(absl::StrCat("server refused: ", reply.done().error()));
  } else if (s.ok() && !reply.has_ready()) {
    s = absl::InternalError("unexpected reply from the server");
  }
  if (!s.ok()) {
    out.status = s;
    return out;
  }
  platform::HostPort data_peer{peer.host, static_cast<uint16_t>(reply.ready().data_port())};
  if (req.op() == v1::RR_LAT) {
    out = ClientRrLat(data_peer, req, t);
    // Closing the data connection ended the server's echo loop; its Done
    // carries its counters.
    v1::ControlMessage done;
    absl::Status read = platform::ReadMessage(control->get(), &done, absl::Now() + t.setup);
    if (read.ok() && done.has_done()) {
      AddServerCounters(done.done(), &out.result);
    } else {
      out.result.add_counters_unread(
          absl::StrCat("server: no answer after the run (", read.ok() ? "not a Done" : read.message(), ")"));
    }
  } else {
    out = ClientStreamBw(control->get(), data_peer, req, t);
  }
  out.started = true;
  return out;
}

uint64_t SessionBytes(const v1::TransferRequest& req) {
  const uint64_t size = req.size();
  if (req.transport() == v1::RDMA) return req.op() == v1::WRITE_LAT ? 2 * size : size;
  if (req.op() == v1::RR_LAT) return size;
  const uint64_t per_stream = std::max<uint64_t>(size, kReceiveChunk);  // receive buffer
  return static_cast<uint64_t>(std::max<uint32_t>(req.streams(), 1)) * per_stream *
         (req.bidirectional() ? 2 : 1);
}

absl::StatusOr<std::unique_ptr<TransferServer>> TransferServer::Start(
    const std::string& bind_ip, uint16_t port, Timeouts timeouts, ServerLimits limits) {
  absl::StatusOr<Fd> listener = platform::Listen(bind_ip, port);
  if (!listener.ok()) return listener.status();
  absl::StatusOr<uint16_t> actual = platform::LocalPort(listener->get());
  if (!actual.ok()) return actual.status();
  auto server = std::unique_ptr<TransferServer>(
      new TransferServer(*std::move(listener), *actual, bind_ip, timeouts, limits));
  if (!server->stop_.ok()) return absl::ErrnoToStatus(errno, "eventfd");
  return server;
}

TransferServer::TransferServer(Fd listener, uint16_t port, std::string bind_ip, Timeouts timeouts,
                               ServerLimits limits)
    : listener_(std::move(listener)),
      port_(port),
      bind_ip_(std::move(bind_ip)),
      timeouts_(timeouts),
      limits_(limits) {}

TransferServer::~TransferServer() {
  Stop();
  connections_.JoinAll();
}

void TransferServer::Stop() { stop_.Raise(); }

void TransferServer::Serve() {
  while (true) {
    const platform::StopSignal::Woken woken = stop_.WaitReadable(listener_.get(), -1);
    if (woken == platform::StopSignal::Woken::kTimedOut) continue;  // interrupted
    if (woken != platform::StopSignal::Woken::kReadable) return;
    absl::StatusOr<Fd> c = platform::Accept(listener_.get(), absl::Now() + absl::Seconds(1));
    if (!c.ok()) continue;
    // Past the limit the connection is closed at once (its Fd goes out of
    // scope): a flood costs no thread and no memory.
    if (connections_.running() >= static_cast<size_t>(limits_.max_connections)) continue;
    auto conn = std::make_shared<Fd>(*std::move(c));
    connections_.Start([this, conn] { HandleControl(std::move(*conn)); });
  }
}

void TransferServer::HandleControl(Fd control) {
  v1::ControlMessage msg;
  // A stranger's bytes are refused by ReadMessage (size cap, parse check).
  if (!platform::ReadMessage(control.get(), &msg, absl::Now() + timeouts_.setup).ok() ||
      !msg.has_request()) {
    return;
  }
  const v1::TransferRequest& req = msg.request();
  v1::ControlMessage reply;
  absl::Status valid = Validate(req);
  // Limits before anything is allocated; the session count is held until
  // this connection ends.
  const int active = ++sessions_;
  struct Release {
    std::atomic<int>* n;
    ~Release() { --*n; }
  } release{&sessions_};
  if (valid.ok() && active > limits_.max_sessions) {
    valid = absl::ResourceExhaustedError(absl::StrCat(
        "the server already runs ", limits_.max_sessions,
        " sessions (its limit); retry when one ends"));
  }
  if (valid.ok() && SessionBytes(req) > limits_.max_session_bytes) {
    valid = absl::ResourceExhaustedError(absl::StrCat(
        "the request needs ", SessionBytes(req) >> 20, " MiB of buffers, above the server's "
        "limit of ", limits_.max_session_bytes >> 20,
        " MiB per session (fewer streams or a smaller --size)"));
  }
  if (valid.ok() && req.transport() == v1::RDMA) {
    ServeRdma(control.get(), req, timeouts_, rdma_choice_, counter_root_);
    ++runs_served_;
    return;
  }
  absl::StatusOr<Fd> data = valid.ok() ? platform::Listen(bind_ip_, 0)
                                       : absl::StatusOr<Fd>(valid);
  absl::StatusOr<uint16_t> data_port =
      data.ok() ? platform::LocalPort(data->get()) : absl::StatusOr<uint16_t>(data.status());
  if (!data_port.ok()) {
    reply.mutable_done()->set_error(std::string(data_port.status().message()));
    (void)platform::WriteMessage(control.get(), reply, absl::Now() + timeouts_.setup);
    return;
  }
  reply.mutable_ready()->set_data_port(*data_port);
  if (!platform::WriteMessage(control.get(), reply, absl::Now() + timeouts_.setup).ok()) {
    return;
  }
  // The interface the client reached us on: its counters around our part
  // of the run go back in our Done (a stream's drops land at its receiver).
  CounterSource counter_source;
  absl::StatusOr<std::string> local_ip = platform::LocalIp(control.get());
  absl::StatusOr<platform::Egress> iface =
      local_ip.ok() ? platform::InterfaceOf(*local_ip)
                    : absl::StatusOr<platform::Egress>(local_ip.status());
  if (iface.ok()) {
    counter_source = NetdevCounterSource(counter_root_, iface->netdev);
  } else {
    counter_source.why_none = std::string(iface.status().message());
  }
  const CounterWindow counters(counter_source, "server");
  std::optional<v1::ControlMessage> done =
      req.op() == v1::STREAM_BW ? ServeStreamBw(*std::move(data), req, timeouts_)
                                : ServeRrLat(*std::move(data), req, timeouts_);
  if (done) {
    std::string unread;
    for (v1::CounterDelta& d : counters.Finish(&unread)) *done->mutable_done()->add_counters() = d;
    done->mutable_done()->set_counters_unread(unread);
    (void)platform::WriteMessage(control.get(), *done, absl::Now() + timeouts_.setup);
  }
  ++runs_served_;
}

}  // namespace nodeprobe::transfer
