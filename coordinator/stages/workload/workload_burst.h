// A burst during the workload stage's steps (`run --stage workload --burst
// storage|east-west`): what the job's step does when a checkpoint or bulk
// traffic shares its nodes. The ranks run it (probes/workload/burst.h);
// here the request is completed and checked before any node is touched,
// and the steps are judged in three phases: before the burst, during it
// and after it. Each phase has its step p50, p99 and max (the slowest
// rank's step) and exposed-communication p99; the burst's slowdown is the
// p99 during it over the p99 before. Above workload.burst_slowdown_max it
// is WORKLOAD_BURST_STALLS (FAIL): the fabric lets a burst take what the
// collective needs. The phase after says whether the step came back.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/stages/workload/workload_judge.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// The burst `request` asks for with its window and path filled in (the
// middle third of the measured steps unless given; the profile's first
// storage.paths), or INVALID_ARGUMENT naming the flag or key to fix.
// kind "": no burst.
absl::StatusOr<v1::WorkloadBurst> BurstOf(const v1::RunStageRequest& request,
                                          const Profile& profile);

// The steps outside the burst's window (all of them without a burst): the
// ones the step, jitter and straggler rules judge; the window's are the
// burst rule's.
std::vector<StepTimes> QuietSteps(const std::vector<StepTimes>& steps,
                                  const v1::WorkloadBurst& burst);

// The phases of `steps` around `burst`, into `report`; the finding into
// `findings` when the burst stalls the step.
void JudgeBurst(const v1::WorkloadBurst& burst, const std::vector<StepTimes>& steps,
                double slowdown_max, v1::WorkloadReport* report,
                google::protobuf::RepeatedPtrField<v1::Finding>* findings);

}  // namespace nodeprobe::coordinator
