// From every rank's replayed steps (probes/workload/gloo_replay.h,
// nccl_replay.h) to what the judgement reads (workload_judge.h): per
// step and rank the step time, the time exposed in communication and the
// time spent waiting for the group's late arrival.
//
// No clocks are compared across nodes: at a blocking collective every
// member leaves together, so a member's duration minus the shortest
// duration of its group is how long it waited for the last arrival (the
// last arrival waits ~0). Overlapped ops (DDP's buckets) and the pipeline's
// sends and receives are left out of the waits: their durations also hold
// the other side's progress.
//
// A slow link does not make its node arrive late: a collective over it is
// slow for every member alike. It shows as groups slower than the same
// transfer elsewhere (`StepTimes.slow_ms`): per rank and kind of group
// (TP, DP, EP, the pipeline pairs), how much longer than the median of its
// kind and size its collectives took (a collective's own time: its last
// arrival's duration), and how much longer each pipeline receive took than
// the same receive on the other data-parallel replicas (carried by both
// ends of the pair). Only groups and pairs that cross nodes count: one
// inside a node says nothing of a link. A node whose link is slow is slow
// in every kind; a partner of it only in the kind they share. So slow_ms
// is the least of a rank's kinds: the node in every slow group stands out,
// its partners do not.
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
