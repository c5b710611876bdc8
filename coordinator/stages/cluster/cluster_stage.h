// File: cluster_stage.h
// The cluster stage's pair measurements: the nodes meet in rounds (all
// pairs by the circle method, or a ring; coordinator/pairing.h), each
// round's pairs run at once on a bounded pool and measure what the
// two-node stage measures. Then blame (coordinator/blame.h): the nodes,
// rails and links that explain the low transfers become suspects, and each
// suspect is measured again against a node that is not suspect itself (a
// link: the same pair again), several suspects at once, each node in one
// retest at a time. A suspect the retest confirms FAILs; one that does not
// reproduce WARNs; one that could not be retested gets transfer.below_peers.
#pragma once

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/stage.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// Adds the rounds' pairs (round numbers from 1; retests after them,
// marked), run->pattern, run->rounds, run->suspects and their findings.
// `usable[i]`: node i answered its single-node probes.
void RunClusterRounds(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                      const std::vector<bool>& usable, const v1::RunStageRequest& request,
                      const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                      const CheckpointFn& checkpoint);

// `run --stage cluster --soak`: the pattern's rounds again, pass after pass
// (bandwidth only, rounds numbered on from the run's last), until `until`
// or `deadline`; judged over time by JudgeSoak (soak.h).
void RunClusterSoak(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                    const std::vector<bool>& usable, const v1::RunStageRequest& request,
                    absl::Time until, absl::Time deadline, const ProgressFn& progress,
                    const CheckpointFn& checkpoint);

// The cluster stage (`--stage cluster`): its rounds, blame and retests,
// and the soak that repeats them (--soak).
class ClusterStage : public Stage {
 public:
  std::string_view name() const override { return "cluster"; }
  bool Applies(const v1::RunStageRequest& r) const override { return r.stage() == v1::CLUSTER; }
  absl::Status CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                            const Profile& profile) const override;
  void Measure(const StageContext& ctx) override;
  void Judge(const v1::RunStageRequest& request, const Profile& profile,
             v1::StageRun* run) const override;
};

}  // namespace nodeprobe::coordinator
