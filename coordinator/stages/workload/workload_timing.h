// From every rank's replayed steps (probes/workload/gloo_replay.h, and the
// NCCL ranks to come) to what the judgement reads (workload_judge.h): per
// step and rank the step time, the time exposed in communication and the
// time spent waiting for the group's late arrival.
//
// No clocks are compared across nodes: at a blocking collective every
// member leaves together, so a member's duration minus the shortest
// duration of its group is how long it waited for the last arrival (the
// last arrival waits ~0). Overlapped ops (DDP's buckets) and the pipeline's
// sends and receives are left out of the waits: their durations also hold
// the other side's progress.
#pragma once

#include <vector>

#include "absl/status/statusor.h"
#include "coordinator/stages/workload/workload_judge.h"
#include "probes/workload/replay_report.h"
#include "probes/workload/step_program.h"

namespace nodeprobe::coordinator {

// `programs[r]` and `reports[r]` are rank r's; INVALID_ARGUMENT when a
// report's steps or ops do not match its program (a rank that stopped
// early, a program from another shape).
absl::StatusOr<std::vector<StepTimes>> StepTimesOf(
    const workload::Placement& placement, const std::vector<std::vector<workload::Op>>& programs,
    const std::vector<workload::ReplayReport>& reports);

}  // namespace nodeprobe::coordinator
