// File: failure_stage.h
// Failure injection (`run --stage failure --allow-disruptive`): on the
// first two nodes, a transfer from A to B on the first rail, and two
// seconds into it A's agent takes its interface toward B down for
// failure.link_down_s (agent/link_flap.h; the agent must allow it). Then
// short transfers until one succeeds. Recorded: every action with its
// time and the operator who ran the stage, when the link was seen down and
// up, whether the transfer errored cleanly, resumed or hung, how long until
// traffic flowed again, and how many rails A has for traffic to move to.
//   (its findings, with severity and remedy: coordinator/coordinator_findings.h,
//    probes/framework/framework_findings.h)
// Scenario agent-restart (`--scenario agent-restart`): two seconds into a
// transfer A -> B, B's agent restarts in place (task RestartAgent; the
// agent must allow it): the time until the coordinator loses its stream,
// what A's transfer made of it (it must end by itself), the time until B
// registered again and a transfer through it worked. The coordinator's own
// store is not touched by an agent restart, so nothing is checked there;
// the coordinator-restart scenario is the cluster stage's
// --resume (a run interrupted by a coordinator restart goes on, its pairs
// kept), tested in the lab rather than injected.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// `find` gives a node's current session (a restarted agent's new one).
void RunFailure(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                const std::vector<bool>& usable, const v1::RunStageRequest& request,
                const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                const AgentFinder& find);

// The failure stage (`--stage failure`, only with --allow-disruptive).
class FailureStage : public Stage {
 public:
  std::string_view name() const override { return "failure"; }
  bool Applies(const v1::RunStageRequest& r) const override { return r.stage() == v1::FAILURE; }
  absl::Status CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                            const Profile& profile) const override;
  void Measure(const StageContext& ctx) override;
};

}  // namespace nodeprobe::coordinator
