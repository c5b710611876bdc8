// The workload stage (`run --stage workload`): the profile's job shape
// (probes/workload) replayed on the nodes, one rank per GPU (or
// workload.ranks_per_node; 1 on a node without GPUs), each rank a task
// worker on its node (workload_ranks.h). Its steps are judged as one job's
// (workload_judge.h); a late rank is measured a second time before it is
// FAIL. NCCL where every node has a GPU for each of its ranks (the nodes'
// own nccl probes say how many), Gloo over TCP elsewhere; the record says
// which library ran.
#pragma once

#include "coordinator/stage.h"

namespace nodeprobe::coordinator {

class WorkloadStage : public Stage {
 public:
  std::string_view name() const override { return "workload"; }
  bool Applies(const v1::RunStageRequest& r) const override { return r.stage() == v1::WORKLOAD; }
  // A shape that does not fit the nodes (when its ranks per node are known
  // before the nodes' GPUs are counted): one line naming the key.
  absl::Status CheckRequest(const v1::RunStageRequest&, size_t nodes,
                            const Profile& profile) const override;
  void Measure(const StageContext& ctx) override;
};

}  // namespace nodeprobe::coordinator
