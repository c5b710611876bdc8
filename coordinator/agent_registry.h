// File: agent_registry.h
// The agents connected to this coordinator: one session per node, holding
// its stream, registration, heartbeat time and the replies to tasks in
// flight. A session whose stream ends (or that falls silent) is lost, and
// everything waiting on it is told so at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/mutex.h"

namespace nodeprobe::coordinator {

// Told how long each task took from its sending to its result, by kind
// ("run_probes", "run_transfer", ...): the coordinator's task latencies.
using TaskObserver = std::function<void(const std::string& kind, absl::Duration took)>;

class AgentSession {
 public:
  // `send` queues a message on the agent's stream (false once it is gone);
  // `end` finishes the stream. Both must be safe from any thread.
  // `identity`: who the peer is beyond its node name: its certificate
  // (mTLS), or its address on a plaintext coordinator.
  AgentSession(std::string node, std::string address, v1::Registration reg,
               std::function<bool(const v1::CoordinatorMessage&)> send,
               std::function<void()> end, std::string identity = "")
      : node_(std::move(node)), address_(std::move(address)), reg_(std::move(reg)),
        identity_(std::move(identity)), send_(std::move(send)), end_(std::move(end)),
        last_heartbeat_(absl::Now()) {}

  const std::string& node() const { return node_; }
  const std::string& identity() const { return identity_; }
  const std::string& address() const { return address_; }  // the agent's IP
  const v1::Registration& registration() const { return reg_; }

  // Sends a task; false when the stream is gone.
  bool Send(const v1::CoordinatorMessage& msg);
  // From now on, each task's result is timed for `observer`.
  void ObserveTasks(TaskObserver observer);
  // Registers a task whose reply Await() will collect. Replies to tasks
  // not expected are dropped, so an agent cannot grow the coordinator's
  // memory with unsolicited results.
  void Expect(const std::string& task_id);
  // Delivers an agent's message for a task (from the Connect loop).
  void Deliver(const std::string& task_id, v1::AgentMessage msg);
  // Waits for the reply to `task_id`: UNAVAILABLE when the agent is lost,
  // DEADLINE_EXCEEDED at the deadline.
  absl::StatusOr<v1::AgentMessage> Await(const std::string& task_id, absl::Time deadline);
  // Await for a task that answers twice (an endpoint, then its result):
  // the task stays expected, so the second answer is not dropped.
  absl::StatusOr<v1::AgentMessage> AwaitFirst(const std::string& task_id, absl::Time deadline);

  void Heartbeat();
  absl::Time last_heartbeat() const;
  // Ends the session: waiters wake with UNAVAILABLE; the stream is cancelled.
  void Lose();
  bool alive() const;

  // The stage this node runs was cancelled: every wait returns CANCELLED
  // at once, and the agent is told to cancel each task awaited, until the
  // stage releases the node.
  void CancelStage();
  bool cancelled() const;

  // One stage at a time per node.
  bool TryAcquire();
  void Release();
  bool busy() const;

 private:
  const std::string node_;
  const std::string address_;
  const v1::Registration reg_;
  const std::string identity_;
  const std::function<bool(const v1::CoordinatorMessage&)> send_;
  const std::function<void()> end_;
  mutable platform::Mutex mu_;
  platform::CondVar cv_;
  absl::StatusOr<v1::AgentMessage> AwaitLocked(const std::string& task_id, absl::Time deadline,
                                               bool keep) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // An expected task: its reply once it comes and, while a result is
  // awaited for the observer, the task's kind and when it was sent.
  struct Pending {
    std::optional<v1::AgentMessage> reply;
    std::string kind;  // "" once timed (or not observed)
    absl::Time sent;
  };
  std::map<std::string, Pending> replies_ ABSL_GUARDED_BY(mu_);
  TaskObserver observer_ ABSL_GUARDED_BY(mu_);
  absl::Time last_heartbeat_ ABSL_GUARDED_BY(mu_);
  bool alive_ ABSL_GUARDED_BY(mu_) = true;
  bool busy_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

class AgentRegistry {
 public:
  // A node that connects again with the same identity replaces its old
  // session (which is lost): a reconnect after a network blip. A live
  // session of the name held by another identity is kept, and the newcomer
  // refused (ALREADY_EXISTS naming the holder's address): two agents with
  // one --node-name must not take the name from each other in turn.
  absl::Status Add(std::shared_ptr<AgentSession> s);
  void Remove(const std::shared_ptr<AgentSession>& s);
  std::shared_ptr<AgentSession> Find(const std::string& node) const;
  std::vector<std::shared_ptr<AgentSession>> All() const;
  // Loses every session silent for longer than `silence`.
  void ReapSilent(absl::Duration silence);
  // Every session added from now on times its tasks for `observer`.
  void set_task_observer(TaskObserver observer);

 private:
  mutable platform::Mutex mu_;
  TaskObserver observer_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::shared_ptr<AgentSession>> sessions_ ABSL_GUARDED_BY(mu_);
};

}  // namespace nodeprobe::coordinator
