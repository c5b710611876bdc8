#include "probes/workload/rendezvous_store.h"

#include <stdexcept>

#include "absl/strings/str_cat.h"
#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::workload {

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
  v1::StoreRequest req;
  const absl::Status read = platform::ReadMessage(fd, &req, absl::Now() + absl::Seconds(10));
  if (!read.ok() && !absl::IsInvalidArgument(read)) return false;  // closed, or silent
  if (!read.ok() || req.secret() != secret_ || req.key().size() > limits_.max_key_bytes ||
      req.op_case() == v1::StoreRequest::OP_NOT_SET) {
    ++refused_;
    return false;
  }
  if (req.has_set()) {
    platform::MutexLock l(&mu_);
    if (req.set().size() > limits_.max_value_bytes ||
        (values_.size() >= limits_.max_keys && !values_.count(req.key()))) {
      ++refused_;
      return false;
    }
    values_[req.key()] = std::vector<char>(req.set().begin(), req.set().end());
    changed_.SignalAll();
    return true;
  }
  v1::StoreReply reply;
  {
    const absl::Time until = absl::Now() + limits_.get_wait;
    platform::MutexLock l(&mu_);
    while (!values_.count(req.key()) && !stop_.raised() && absl::Now() < until) {
      changed_.WaitUntil(&mu_, std::min(until, absl::Now() + absl::Seconds(1)));
    }
    if (auto it = values_.find(req.key()); it != values_.end()) {
      reply.set_found(true);
      reply.set_value(std::string(it->second.begin(), it->second.end()));
    }
  }
  return platform::WriteMessage(fd, reply, absl::Now() + absl::Seconds(10)).ok();
}

absl::StatusOr<std::unique_ptr<StoreClient>> StoreClient::Connect(const platform::HostPort& server,
                                                                  std::string secret,
                                                                  absl::Duration timeout) {
  absl::StatusOr<platform::Fd> fd = platform::Connect(server, absl::Now() + timeout);
  if (!fd.ok()) return fd.status();
  return std::unique_ptr<StoreClient>(new StoreClient(*std::move(fd), std::move(secret), timeout));
}

void StoreClient::set(const std::string& key, const std::vector<char>& data) {
  v1::StoreRequest req;
  req.set_secret(secret_);
  req.set_key(key);
  req.set_set(std::string(data.begin(), data.end()));
  platform::MutexLock l(&mu_);
  absl::Status s = platform::WriteMessage(fd_.get(), req, absl::Now() + timeout_);
  if (!s.ok()) throw std::runtime_error(absl::StrCat("store set ", key, ": ", s.message()));
}

std::vector<char> StoreClient::get(const std::string& key) {
  v1::StoreRequest req;
  req.set_secret(secret_);
  req.set_key(key);
  req.set_get(true);
  const absl::Time give_up = absl::Now() + timeout_;
  platform::MutexLock l(&mu_);
  // The server answers each get within its own wait: ask again until ours.
  while (true) {
    const absl::Time deadline = absl::Now() + timeout_ + absl::Seconds(70);
    v1::StoreReply reply;
    absl::Status s = platform::WriteMessage(fd_.get(), req, deadline);
    if (s.ok()) s = platform::ReadMessage(fd_.get(), &reply, deadline);
    if (!s.ok()) throw std::runtime_error(absl::StrCat("store get ", key, ": ", s.message()));
    if (reply.found()) return std::vector<char>(reply.value().begin(), reply.value().end());
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
