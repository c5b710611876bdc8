// The worker's side of a RunWorkloadRank task: one rank of the workload
// stage replayed on Gloo (probes/workload/gloo_replay.h), meeting the
// others through rank 0's rendezvous store (rendezvous_store.h).
#pragma once

#include <functional>

#include "nodeprobe/v1/task.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::tasks {

// Emits a ready (rank 0: its store's port) and then the done with the
// rank's WorkloadRankReport, or an ERROR result naming what failed.
void RunWorkloadRankTask(const v1::Task& task, const Profile& profile,
                         const std::function<void(const v1::TaskEvent&)>& emit);

}  // namespace nodeprobe::tasks
