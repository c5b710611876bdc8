// File: collective_runner.h
// One rank of an NCCL run, in the worker process that owns it (tasks/
// RunCollective): loads CUDA and NCCL (platform/nccl_api.h), joins the
// communicator, runs every collective at every size out of place and in
// place -- warm-up, timed iterations between two CUDA events on the stream,
// then one checked run (nccl-tests -c) -- and reads back what NCCL logged.
//
// Nothing here waits without a deadline: every wait polls the stream and
// ncclCommGetAsyncError, and at the deadline the communicator is aborted
// (ncclCommAbort) and the rank answers NCCL_TIMEOUT saying where it was. A
// blocking call that never returns (ncclCommInitRank with a peer missing)
// is left on its thread and the rank answers anyway: the worker must then
// end without running destructors (`abandoned`).
#pragma once

#include <functional>
#include <string>

#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::nccl {

struct RankOutput {
  // probe "nccl", detail.collective with this rank alone in ranks(0); SKIP
  // without CUDA/NCCL/GPU, ERROR with NCCL_TIMEOUT / NCCL_ASYNC_ERROR /
  // NCCL_INIT_FAILED.
  v1::ProbeResult result;
  bool abandoned = false;
};

// `on_unique_id` gets rank 0's new id (rank 0 only) before it joins.
RankOutput RunCollectiveRank(const v1::RunCollective& task, absl::Time deadline,
                             const std::function<void(const std::string&)>& on_unique_id);

}  // namespace nodeprobe::nccl
