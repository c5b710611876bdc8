#include "coordinator/agent_registry.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tasks/task_kinds.h"

namespace nodeprobe::coordinator {

bool AgentSession::Send(const v1::CoordinatorMessage& msg) {
  if (!alive()) return false;
  if (msg.has_task()) {
    platform::MutexLock l(&mu_);
    auto it = replies_.find(msg.task().task_id());
    if (observer_ && it != replies_.end()) {
      it->second.kind = tasks::TaskKind(msg.task());
      it->second.sent = absl::Now();
    }
  }
  return send_(msg);
}

void AgentSession::ObserveTasks(TaskObserver observer) {
  platform::MutexLock l(&mu_);
  observer_ = std::move(observer);
}

void AgentSession::Expect(const std::string& task_id) {
  platform::MutexLock l(&mu_);
  replies_.emplace(task_id, Pending{});
}

void AgentSession::Deliver(const std::string& task_id, v1::AgentMessage msg) {
  TaskObserver observer;
  std::string kind;
  absl::Duration took;
  {
    platform::MutexLock l(&mu_);
    auto it = replies_.find(task_id);
    if (it == replies_.end()) return;  // not asked for: dropped
    Pending& p = it->second;
    if (msg.has_result() && !p.kind.empty()) {  // timed once, at its result
      observer = observer_;
      kind = std::exchange(p.kind, "");
      took = absl::Now() - p.sent;
    }
    p.reply = std::move(msg);
    cv_.SignalAll();
  }
  if (observer) observer(kind, took);
}

absl::StatusOr<v1::AgentMessage> AgentSession::Await(const std::string& task_id,
                                                     absl::Time deadline) {
  platform::MutexLock l(&mu_);
  return AwaitLocked(task_id, deadline, false);
}

absl::StatusOr<v1::AgentMessage> AgentSession::AwaitFirst(const std::string& task_id,
                                                          absl::Time deadline) {
  platform::MutexLock l(&mu_);
  return AwaitLocked(task_id, deadline, true);
}

absl::StatusOr<v1::AgentMessage> AgentSession::AwaitLocked(const std::string& task_id,
                                                           absl::Time deadline, bool keep) {
  while (true) {
    auto it = replies_.find(task_id);
    if (it != replies_.end() && it->second.reply.has_value()) {
      v1::AgentMessage m = *std::move(it->second.reply);
      if (keep) {
        it->second.reply.reset();
      } else {
        replies_.erase(it);
      }
      return m;
    }
    if (cancelled_) {
      replies_.erase(task_id);
      return absl::CancelledError(absl::StrCat("the run was cancelled while ", node_,
                                               " worked on task ", task_id));
    }
    if (!alive_) {
      replies_.erase(task_id);
      return absl::UnavailableError(absl::StrCat("agent ", node_, " was lost"));
    }
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      replies_.erase(task_id);
      return absl::DeadlineExceededError(
          absl::StrCat("agent ", node_, " did not answer task ", task_id, " in time"));
    }
    cv_.WaitFor(&mu_, std::min(left, absl::Seconds(1)));
  }
}

void AgentSession::Heartbeat() {
  platform::MutexLock l(&mu_);
  last_heartbeat_ = absl::Now();
}

absl::Time AgentSession::last_heartbeat() const {
  platform::MutexLock l(&mu_);
  return last_heartbeat_;
}

void AgentSession::Lose() {
  {
    platform::MutexLock l(&mu_);
    if (!alive_) return;
    alive_ = false;
    cv_.SignalAll();
  }
  end_();
}

bool AgentSession::alive() const {
  platform::MutexLock l(&mu_);
  return alive_;
}

void AgentSession::CancelStage() {
  std::vector<std::string> pending;
  {
    platform::MutexLock l(&mu_);
    if (!busy_) return;  // nothing runs here (the stage already released it)
    cancelled_ = true;
    for (const auto& [id, p] : replies_) pending.push_back(id);
    cv_.SignalAll();
  }
  for (const std::string& id : pending) {
    v1::CoordinatorMessage msg;
    msg.mutable_cancel()->set_task_id(id);
    (void)send_(msg);  // the agent kills that task's worker
  }
}

bool AgentSession::cancelled() const {
  platform::MutexLock l(&mu_);
  return cancelled_;
}

bool AgentSession::TryAcquire() {
  platform::MutexLock l(&mu_);
  if (busy_) return false;
  busy_ = true;
  cancelled_ = false;
  return true;
}

void AgentSession::Release() {
  platform::MutexLock l(&mu_);
  busy_ = false;
  cancelled_ = false;
}

bool AgentSession::busy() const {
  platform::MutexLock l(&mu_);
  return busy_;
}

absl::Status AgentRegistry::Add(std::shared_ptr<AgentSession> s) {
  std::shared_ptr<AgentSession> old;
  {
    platform::MutexLock l(&mu_);
    auto it = sessions_.find(s->node());
    if (it != sessions_.end()) {
      old = it->second;
      if (old->alive() && old->identity() != s->identity()) {
        return absl::AlreadyExistsError(absl::StrCat(
            "node '", s->node(), "' is already connected from ", old->address(),
            " with another ", s->identity().find("BEGIN CERTIFICATE") != std::string::npos
                                  ? "certificate"
                                  : "address",
            "; stop that agent or give this one another --node-name"));
      }
    }
    if (observer_) s->ObserveTasks(observer_);
    sessions_[s->node()] = std::move(s);
  }
  if (old) old->Lose();
  return absl::OkStatus();
}

void AgentRegistry::Remove(const std::shared_ptr<AgentSession>& s) {
  platform::MutexLock l(&mu_);
  auto it = sessions_.find(s->node());
  if (it != sessions_.end() && it->second == s) sessions_.erase(it);
}

std::shared_ptr<AgentSession> AgentRegistry::Find(const std::string& node) const {
  platform::MutexLock l(&mu_);
  auto it = sessions_.find(node);
  return it == sessions_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<AgentSession>> AgentRegistry::All() const {
  platform::MutexLock l(&mu_);
  std::vector<std::shared_ptr<AgentSession>> out;
  for (const auto& [name, s] : sessions_) out.push_back(s);
  return out;
}

void AgentRegistry::ReapSilent(absl::Duration silence) {
  for (const auto& s : All()) {
    if (absl::Now() - s->last_heartbeat() > silence) s->Lose();
  }
}

void AgentRegistry::set_task_observer(TaskObserver observer) {
  platform::MutexLock l(&mu_);
  observer_ = std::move(observer);
}

}  // namespace nodeprobe::coordinator
