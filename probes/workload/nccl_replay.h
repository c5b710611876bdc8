// One rank of the workload stage replayed on NCCL, on GPU nodes (the Gloo
// replay's twin: gloo_replay.h). The CUDA runtime and NCCL are loaded with
// dlopen (platform/nccl_api.h); each group (TP, DP, EP, PP) is its own
// communicator, its unique id made by the group's first member and passed
// through the run's rendezvous store (rendezvous_store.h), joined by every
// rank in one order so no two wait for each other in different groups.
//
// Per op, as the Gloo replay times it: a blocking collective is enqueued
// on the rank's stream and timed on the host until the stream is idle; a
// pipeline send and the receive after it go as one NCCL group (Megatron-
// LM's batched 1F1B exchange), timed as the receive; DDP's overlapped
// gradient buckets go on a second stream, timed by CUDA events, and the
// step's kWait waits for them. Compute is a calibrated spin on the host: the GPU idles
// meanwhile (a busy kernel needs nvcc at build time; the pattern's timing
// is what is replayed, not the GPU's power).
#pragma once

#include <gloo/rendezvous/store.h>

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "probes/workload/replay_report.h"
#include "probes/workload/step_program.h"

namespace nodeprobe::workload {

// Runs `program` warmup + steps times as rank `rank` on CUDA device `gpu`.
// FAILED_PRECONDITION without CUDA, NCCL or that GPU; UNAVAILABLE when a
// group cannot be joined; INTERNAL naming the op that failed;
// DEADLINE_EXCEEDED when an op did not finish within `op_timeout` (its
// communicators are aborted).
absl::StatusOr<ReplayReport> ReplayOnNccl(const Placement& placement, int rank, int gpu,
                                          gloo::rendezvous::Store& store,
                                          const std::vector<Op>& program, int warmup, int steps,
                                          absl::Duration op_timeout,
                                          const std::function<void(int)>& at_step = {});

}  // namespace nodeprobe::workload
