// File: builtin_stages.cc
// Every multi-node stage, in the order a run measures them. Adding a stage:
// its folder under coordinator/stages/ (picked up by itself) and its
// Register() line here.
#include <memory>

#include "coordinator/stage.h"
#include "coordinator/stages/builtin_stage_headers.h"  // generated: every np_stage's header

namespace nodeprobe::coordinator {

const StageRegistry& BuiltinStages() {
  static const StageRegistry* registry = [] {
    auto* r = new StageRegistry;
    r->Register(std::make_unique<TwoNodeStage>());
    r->Register(std::make_unique<ClusterStage>());
    r->Register(std::make_unique<StorageStormStage>());
    r->Register(std::make_unique<CongestionStage>());
    r->Register(std::make_unique<FailureStage>());
    r->Register(std::make_unique<CollectivesStage>());
    r->Register(std::make_unique<WorkloadStage>());
    return r;
  }();
  return *registry;
}

}  // namespace nodeprobe::coordinator
