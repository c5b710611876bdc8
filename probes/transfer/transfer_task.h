// File: transfer_task.h
// A transfer as a task describes it (v1::RunTransfer): checked, then run.
// The CLI's `transfer run` and the task worker both come here, so a
// transfer started by an agent is the same code as one typed by hand.
#pragma once

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/task.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::transfer {

// INVALID_ARGUMENT naming the field and the fix: transport/op mismatch,
// non-finite or out-of-range duration, zero streams or depth, no or bad
// sizes, iteration counts that could not finish within `max_run` (each
// message takes at least a microsecond), --gpu without RDMA.
absl::Status ValidateTransfer(const v1::RunTransfer& t, absl::Duration max_run);

// The CUDA ordinal a transfer end's buffer goes on: `ordinal` when set,
// else the GPU at `bus_id` (a stage's rail's nearest GPU), else -1 (host
// memory). An error names a bus id CUDA does not see.
absl::StatusOr<int> BufferGpu(std::optional<uint32_t> ordinal, const std::string& bus_id);

// Runs the client end: for RDMA, picks device, port and GID from the route
// to the peer (or the ones given), then the size sweep, then judges it
// against the profile's or this end's hardware's bar (expectations.h).
// Never fails: what went wrong is an ERROR finding in the result (probe
// "transfer").
v1::ProbeResult RunTransferTask(const v1::RunTransfer& t, absl::Duration idle_timeout,
                                const Profile& profile = {});

}  // namespace nodeprobe::transfer
