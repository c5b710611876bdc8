// File: stage_orchestrator.h
// Runs a multi-node stage over connected agents: the single-node probes on
// every node, then for each rail pair a transfer in each direction (TCP
// where a node has no RDMA rail). Every wait has the stage's deadline; an
// agent lost mid-stage ends its part with AGENT_LOST (TASK_TIMEOUT when it
// stops answering) and the other nodes' results are kept.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

using ProgressFn = std::function<void(const std::string&)>;

// `run` comes in with id, stage, nodes and start time; it is returned
// complete (state, verdict, reports, findings).
v1::StageRun RunStageOnAgents(v1::StageRun run,
                              const std::vector<std::shared_ptr<AgentSession>>& nodes,
                              const v1::RunStageRequest& request, const Profile& profile,
                              absl::Time deadline,
                              const ProgressFn& progress);

// The address a rail's traffic should go to on `session`'s node: the rail's
// first IPv4 address, else the address the agent connected from.
// INVALID_ARGUMENT when --rails names a rail neither node has (with the
// rails they do have).
absl::Status CheckRails(const v1::RunStageRequest& request,
                        const std::vector<std::shared_ptr<AgentSession>>& nodes);

std::string RailAddress(const AgentSession& session, int rail_index);

}  // namespace nodeprobe::coordinator
