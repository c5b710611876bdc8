// File: stage_orchestrator.h
// Runs a multi-node stage over connected agents: the single-node probes on
// every node, then every registered stage that applies to the request
// (stage.h: two-node, cluster, its storage storm, congestion, failure,
// collectives across nodes), the figures judged against each other, what
// the nodes' kernels logged meanwhile, and the verdict. It knows the
// registry, not the stages.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/baseline/figures.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// Refuses a request a stage that applies to it cannot run (stage.h's
// CheckRequest), before any node is touched.
absl::Status CheckRequestAgainstStages(const v1::RunStageRequest& request, size_t nodes,
                                       const Profile& profile);

// Earlier stored runs and the operators' marks, for the baselines
// (coordinator/baseline): read once, lent (up to hundreds of whole runs).
using HistoryFn = std::function<const baseline::History&()>;

// `run` comes in with id, stage, nodes and start time; it is returned
// complete (state, verdict, reports, findings). `history` is asked only
// when the profile judges against baselines (baseline.use).
v1::StageRun RunStageOnAgents(
    v1::StageRun run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
    const v1::RunStageRequest& request, const Profile& profile, absl::Time deadline,
    const ProgressFn& progress, const CheckpointFn& checkpoint = [](const v1::StageRun&) {},
    const AgentFinder& find = nullptr, const HistoryFn& history = nullptr);

}  // namespace nodeprobe::coordinator
