#include "probes/workload/rendezvous_store.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"

namespace nodeprobe::workload {
namespace {

constexpr uint32_t kTimedOut = 0xFFFFFFFFu;

absl::Status SendField(int fd, const std::string& bytes, absl::Time deadline) {
  const uint32_t n = static_cast<uint32_t>(bytes.size());
  const unsigned char len[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                                static_cast<unsigned char>(n >> 16),
                                static_cast<unsigned char>(n >> 24)};
  if (absl::Status s = platform::SendAll(fd, len, 4, deadline); !s.ok()) return s;
  return platform::SendAll(fd, bytes.data(), bytes.size(), deadline);
}

absl::StatusOr<uint32_t> RecvLength(int fd, absl::Time deadline) {
  unsigned char len[4];
  if (absl::Status s = platform::RecvAll(fd, len, 4, deadline); !s.ok()) return s;
  return static_cast<uint32_t>(len[0]) | static_cast<uint32_t>(len[1]) << 8 |
         static_cast<uint32_t>(len[2]) << 16 | static_cast<uint32_t>(len[3]) << 24;
}

// A field of at most `cap` bytes; longer is an error (the caller closes).
absl::StatusOr<std::string> RecvField(int fd, size_t cap, absl::Time deadline) {
  absl::StatusOr<uint32_t> n = RecvLength(fd, deadline);
  if (!n.ok()) return n.status();
  if (*n > cap) return absl::OutOfRangeError("field over its limit");
  std::string out(*n, '\0');
  if (absl::Status s = platform::RecvAll(fd, out.data(), out.size(), deadline); !s.ok()) return s;
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<StoreServer>> StoreServer::Start(const std::string& bind_ip,
                                                                std::string secret,
                                                                StoreLimits limits) {
  if (secret.size() < 16) return absl::InvalidArgumentError("a store secret needs 16+ bytes");
  absl::StatusOr<platform::Fd> listener = platform::Listen(bind_ip, 0);
  if (!listener.ok()) return listener.status();
  absl::StatusOr<uint16_t> port = platform::LocalPort(listener->get());
  if (!port.ok()) return port.status();
  auto server = std::unique_ptr<StoreServer>(
      new StoreServer(*std::move(listener), *port, std::move(secret), limits));
  if (!server->stop_.ok()) return absl::InternalError("eventfd");
  server->accept_ = std::thread([s = server.get()] { s->Serve(); });
  return server;
}

StoreServer::StoreServer(platform::Fd listener, uint16_t port, std::string secret,
                         StoreLimits limits)
    : listener_(std::move(listener)), port_(port), secret_(std::move(secret)), limits_(limits) {}

StoreServer::~StoreServer() {
  stop_.Raise();
  {
    platform::MutexLock l(&mu_);
    changed_.SignalAll();
  }
  if (accept_.joinable()) accept_.join();
  connections_.JoinAll();
}

void StoreServer::Serve() {
  while (true) {
    const platform::StopSignal::Woken woken = stop_.WaitReadable(listener_.get(), -1);
    if (woken == platform::StopSignal::Woken::kTimedOut) continue;
    if (woken != platform::StopSignal::Woken::kReadable) return;
    absl::StatusOr<platform::Fd> c =
        platform::Accept(listener_.get(), absl::Now() + absl::Seconds(1));
    if (!c.ok()) continue;
    if (connections_.running() >= static_cast<size_t>(limits_.max_clients)) {
      ++refused_;
      continue;  // closed as it goes out of scope
    }
    auto conn = std::make_shared<platform::Fd>(*std::move(c));
    connections_.Start([this, conn] { Handle(std::move(*conn)); });
  }
}

void StoreServer::Handle(platform::Fd conn) {
  absl::Time last = absl::Now();
  while (!stop_.raised()) {
    // A rank asks now and then: a connection quiet for longer than a get
    // may wait, and a minute more, is gone or a stranger's.
    if (stop_.WaitReadable(conn.get(), 1000) == platform::StopSignal::Woken::kTimedOut) {
      if (absl::Now() - last > limits_.get_wait + absl::Seconds(60)) return;
      continue;
    }
    if (stop_.raised() || !Request(conn.get())) return;
    last = absl::Now();
  }
}

bool StoreServer::Request(int fd) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  char op = 0;
  if (!platform::RecvAll(fd, &op, 1, deadline).ok()) return false;
  absl::StatusOr<std::string> secret = RecvField(fd, 256, deadline);
  if (!secret.ok() || *secret != secret_ || (op != 'S' && op != 'G')) {
    ++refused_;
    return false;
  }
  absl::StatusOr<std::string> key = RecvField(fd, limits_.max_key_bytes, deadline);
  if (!key.ok()) {
    ++refused_;
    return false;
  }
  if (op == 'S') {
    absl::StatusOr<std::string> value = RecvField(fd, limits_.max_value_bytes, deadline);
    platform::MutexLock l(&mu_);
    if (!value.ok() || (values_.size() >= limits_.max_keys && !values_.count(*key))) {
      ++refused_;
      return false;
    }
    values_[*key] = std::vector<char>(value->begin(), value->end());
    changed_.SignalAll();
    return true;
  }
  std::string value;
  bool found = false;
  {
    const absl::Time until = absl::Now() + limits_.get_wait;
    platform::MutexLock l(&mu_);
    while (!(found = values_.count(*key) > 0) && !stop_.raised() && absl::Now() < until) {
      changed_.WaitUntil(&mu_, std::min(until, absl::Now() + absl::Seconds(1)));
    }
    if (found) value.assign(values_[*key].begin(), values_[*key].end());
  }
  if (!found) {
    const unsigned char none[4] = {0xFF, 0xFF, 0xFF, 0xFF};
    return platform::SendAll(fd, none, 4, absl::Now() + absl::Seconds(10)).ok();
  }
  return SendField(fd, value, absl::Now() + absl::Seconds(10)).ok();
}

absl::StatusOr<std::unique_ptr<StoreClient>> StoreClient::Connect(const platform::HostPort& server,
                                                                  std::string secret,
                                                                  absl::Duration timeout) {
  absl::StatusOr<platform::Fd> fd = platform::Connect(server, absl::Now() + timeout);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<StoreClient>(new StoreClient(*std::move(fd), std::move(secret), timeout));
}

void StoreClient::set(const std::string& key, const std::vector<char>& data) {
  const absl::Time deadline = absl::Now() + timeout_;
  platform::MutexLock l(&mu_);
  const char op = 'S';
  absl::Status s = platform::SendAll(fd_.get(), &op, 1, deadline);
  if (s.ok()) s = SendField(fd_.get(), secret_, deadline);
  if (s.ok()) s = SendField(fd_.get(), key, deadline);
  if (s.ok()) s = SendField(fd_.get(), std::string(data.begin(), data.end()), deadline);
  if (!s.ok()) throw std::runtime_error(absl::StrCat("store set ", key, ": ", s.message()));
}

std::vector<char> StoreClient::get(const std::string& key) {
  const absl::Time give_up = absl::Now() + timeout_;
  platform::MutexLock l(&mu_);
  // The server answers each get within its own wait: ask again until ours.
  while (true) {
    const absl::Time deadline = absl::Now() + timeout_ + absl::Seconds(70);
    const char op = 'G';
    absl::Status s = platform::SendAll(fd_.get(), &op, 1, deadline);
    if (s.ok()) s = SendField(fd_.get(), secret_, deadline);
    if (s.ok()) s = SendField(fd_.get(), key, deadline);
    absl::StatusOr<uint32_t> n = s.ok() ? RecvLength(fd_.get(), deadline) : s;
    if (!n.ok())
      throw std::runtime_error(absl::StrCat("store get ", key, ": ", n.status().message()));
    if (*n != kTimedOut) {
      std::vector<char> out(*n);
      s = platform::RecvAll(fd_.get(), out.data(), out.size(), deadline);
      if (!s.ok()) throw std::runtime_error(absl::StrCat("store get ", key, ": ", s.message()));
      return out;
    }
    if (absl::Now() >= give_up) {
      throw std::runtime_error(absl::StrCat("store get ", key, ": not set by the other ranks in ",
                                            absl::FormatDuration(timeout_)));
    }
  }
}

void StoreClient::wait(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) (void)get(key);
}

void StoreClient::wait(const std::vector<std::string>& keys, const std::chrono::milliseconds&) {
  wait(keys);
}

}  // namespace nodeprobe::workload
