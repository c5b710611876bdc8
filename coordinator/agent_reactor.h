// File: agent_reactor.h
// One agent's Connect stream on gRPC's callback API: no thread is held per
// agent (the sync API's thread-per-stream saturated at a few thousand
// agents on 2 cores). Reads register and then feed the session; writes are
// queued and sent one at a time, as the API requires.
#pragma once

#include <deque>
#include <memory>

#include <grpcpp/grpcpp.h>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/mutex.h"

namespace nodeprobe::coordinator {

class AgentReactor : public grpc::ServerBidiReactor<v1::AgentMessage, v1::CoordinatorMessage> {
 public:
  AgentReactor(grpc::CallbackServerContext* ctx, AgentRegistry* registry, bool check_identity,
               absl::Duration heartbeat);

  void OnReadDone(bool ok) override;
  void OnWriteDone(bool ok) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  // What the session's callbacks reach; outlives the reactor, which clears
  // `reactor` in OnDone so late sends become no-ops.
  struct Handle {
    platform::Mutex mu;
    AgentReactor* reactor ABSL_GUARDED_BY(mu) = nullptr;
  };

  bool Enqueue(const v1::CoordinatorMessage& msg);
  void End(const grpc::Status& status);
  void Register();

  grpc::CallbackServerContext* ctx_;
  AgentRegistry* registry_;
  const bool check_identity_;
  const absl::Duration heartbeat_;
  std::shared_ptr<Handle> handle_;
  std::shared_ptr<AgentSession> session_;
  v1::AgentMessage in_;
  platform::Mutex mu_;
  std::deque<v1::CoordinatorMessage> queue_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

// "ipv4:10.0.0.5:41234" -> "10.0.0.5"; "ipv6:[fd00::5]:4" -> "fd00::5".
std::string PeerIp(const std::string& grpc_peer);

}  // namespace nodeprobe::coordinator
