// File: agent_tasks.h
// Sending tasks to agents and waiting for their answers: the one way the
// stages (stage_orchestrator, collective_stage) talk to nodes.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

std::string NewTaskId();
double SecondsLeft(absl::Time deadline);

// Gives `task` the run's profile and a deadline a little before ours (so a
// task the agent has to kill still comes back as its own TASK_TIMEOUT
// report instead of silence), sends it and marks it expected. UNAVAILABLE
// when the agent is gone; FAILED_PRECONDITION, sending nothing, when its
// agent does not serve the task's kind (tasks/task_kinds.h).
absl::Status Send(AgentSession& s, v1::Task task, absl::Time deadline,
                  const v1::AcceptanceProfile& profile);
// Send, then wait for the reply.
absl::StatusOr<v1::AgentMessage> Ask(AgentSession& s, v1::Task task, absl::Time deadline,
                                     const v1::AcceptanceProfile& profile);
void Cancel(AgentSession& s, const std::string& task_id);

}  // namespace nodeprobe::coordinator
