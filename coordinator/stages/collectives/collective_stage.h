// File: collective_stage.h
// NCCL collectives across nodes, without MPI or ssh: one rank per GPU, in
// node order x local CUDA ordinal (the nodes as the run lists them; each
// node's GPU count from its nccl probe in the single-node part). Rank 0's
// agent creates the unique id and sends it as an endpoint; the coordinator
// relays it to every other rank's task. When a rank fails or its node is
// lost, the others get 5 s to answer by themselves, then are cancelled.
#pragma once

#include <map>
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

// Adds one result to run->collectives (or a finding saying why none ran)
// when the nodes have GPUs; nothing when none has.
void RunCollectivesOnAgents(v1::StageRun* run,
                            const std::vector<std::shared_ptr<AgentSession>>& nodes,
                            const Profile& profile, absl::Time deadline,
                            const ProgressFn& progress);

// NCCL collectives across the nodes, where they have GPUs: every node of a
// two-node stage, the cluster's nodes still connected.
class CollectivesStage : public Stage {
 public:
  std::string_view name() const override { return "collectives"; }
  bool Applies(const v1::RunStageRequest& r) const override {
    return r.stage() == v1::TWO_NODE || r.stage() == v1::CLUSTER;
  }
  void Measure(const StageContext& ctx) override;
};

}  // namespace nodeprobe::coordinator
