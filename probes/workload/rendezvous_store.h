// Where a workload run's ranks meet: a small key-value store served by rank
// 0's worker, as NCCL's bootstrap is served by its rank 0. Gloo's
// connectFullMesh puts each rank's pair addresses in it and waits for the
// others'. Rank 0's address and a per-run secret reach the other ranks
// through the coordinator (over its mutual-TLS session), so every request
// carries the secret; a connection that sends a wrong one, or more than a
// store of addresses holds (keys, values, clients), is closed.
//
// Requests and replies are v1::StoreRequest / StoreReply, framed as every
// control message is (platform::WriteMessage / ReadMessage, which refuse
// what is over its size or does not parse). A set is not answered; a get
// is, when its key is there or its wait ran out.
#pragma once

#include <gloo/rendezvous/store.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "platform/mutex.h"
#include "platform/socket.h"
#include "platform/stop_signal.h"
#include "platform/task_threads.h"

namespace nodeprobe::workload {

struct StoreLimits {
  int max_clients = 1024;  // a run's ranks, and some to spare
  size_t max_keys = 65536;
  size_t max_key_bytes = 1024;
  size_t max_value_bytes = 1 << 16;             // a rank's Gloo addresses are a few kB
  absl::Duration get_wait = absl::Seconds(60);  // a get waits at most this
};

class StoreServer {
 public:
  static absl::StatusOr<std::unique_ptr<StoreServer>> Start(const std::string& bind_ip,
                                                            std::string secret,
                                                            StoreLimits limits = {});
  ~StoreServer();
  uint16_t port() const { return port_; }
  // Connections closed for a wrong secret or a limit (for tests, the log).
  int refused() const { return refused_.load(); }

 private:
  StoreServer(platform::Fd listener, uint16_t port, std::string secret, StoreLimits limits);
  void Serve();
  void Handle(platform::Fd conn);
  // false: close the connection.
  bool Request(int fd);

  platform::Fd listener_;
  uint16_t port_;
  std::string secret_;
  StoreLimits limits_;
  platform::StopSignal stop_;
  std::atomic<int> refused_{0};
  platform::Mutex mu_;
  platform::CondVar changed_;
  std::map<std::string, std::vector<char>> values_ ABSL_GUARDED_BY(mu_);
  platform::TaskThreads connections_;
  std::thread accept_;
};

// Gloo's side: one connection to the server, a request at a time. Gloo
// expects a failed store call to throw; this throws std::runtime_error
// naming the key.
class StoreClient : public gloo::rendezvous::Store {
 public:
  static absl::StatusOr<std::unique_ptr<StoreClient>> Connect(const platform::HostPort& server,
                                                              std::string secret,
                                                              absl::Duration timeout);
  void set(const std::string& key, const std::vector<char>& data) override;
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  StoreClient(platform::Fd fd, std::string secret, absl::Duration timeout)
      : fd_(std::move(fd)), secret_(std::move(secret)), timeout_(timeout) {}
  platform::Mutex mu_;
  platform::Fd fd_ ABSL_GUARDED_BY(mu_);
  std::string secret_;
  absl::Duration timeout_;
};

}  // namespace nodeprobe::workload
