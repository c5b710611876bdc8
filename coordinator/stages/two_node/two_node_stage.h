// File: two_node_stage.h
// The two-node stage (`--stage two-node`): each rail pair measured both
// ways between the two nodes (path MTU, then a transfer), the rails with a
// gap that could FAIL measured again before any FAIL, and the soak that
// repeats the transfers (--soak). A run that measured nothing between the
// nodes is not a pass of the fabric (NOTHING_MEASURED).
#pragma once

#include "coordinator/stage.h"

namespace nodeprobe::coordinator {

class TwoNodeStage : public Stage {
 public:
  std::string_view name() const override { return "two-node"; }
  bool Applies(const v1::RunStageRequest& r) const override { return r.stage() == v1::TWO_NODE; }
  void Measure(const StageContext& ctx) override;
  void Judge(const v1::RunStageRequest& request, const Profile& profile,
             v1::StageRun* run) const override;
};

}  // namespace nodeprobe::coordinator
