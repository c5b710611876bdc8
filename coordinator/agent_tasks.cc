#include "coordinator/agent_tasks.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tasks/task_kinds.h"

namespace nodeprobe::coordinator {

std::string NewTaskId() {
  static std::atomic<uint64_t> next{1};
  return absl::StrCat("t", absl::ToUnixMillis(absl::Now()), "-", next++);
}

double SecondsLeft(absl::Time deadline) {
  return std::max(0.0, absl::ToDoubleSeconds(deadline - absl::Now()));
}

absl::Status Send(AgentSession& s, v1::Task task, absl::Time deadline,
                  const v1::AcceptanceProfile& profile) {
  if (s.cancelled()) {
    return absl::CancelledError(absl::StrCat("the run was cancelled before ", s.node(),
                                             " was sent its next task"));
  }
  // An agent a version behind is never sent what it cannot serve: it
  // would drop it, and the stage would wait for its deadline.
  if (const std::string kind = tasks::TaskKind(task); !tasks::Serves(s.registration(), kind)) {
    return absl::FailedPreconditionError(tasks::NotServedMessage(s.registration(), kind));
  }
  *task.mutable_profile() = profile;
  const double left = SecondsLeft(deadline);
  task.set_deadline_s(left < 10 ? left * 0.8 : left - 2);
  v1::CoordinatorMessage msg;
  s.Expect(task.task_id());
  *msg.mutable_task() = std::move(task);
  if (!s.Send(msg)) return absl::UnavailableError(absl::StrCat("agent ", s.node(), " is gone"));
  return absl::OkStatus();
}

absl::StatusOr<v1::AgentMessage> Ask(AgentSession& s, v1::Task task, absl::Time deadline,
                                     const v1::AcceptanceProfile& profile) {
  const std::string id = task.task_id();
  if (absl::Status sent = Send(s, std::move(task), deadline, profile); !sent.ok()) return sent;
  return s.Await(id, deadline);
}

void Cancel(AgentSession& s, const std::string& task_id) {
  v1::CoordinatorMessage msg;
  msg.mutable_cancel()->set_task_id(task_id);
  s.Send(msg);
}

}  // namespace nodeprobe::coordinator
