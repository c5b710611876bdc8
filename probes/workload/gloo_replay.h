// One rank of a workload shape replayed on Gloo (the collective library
// behind PyTorch's CPU backend), for nodes without GPUs: the rank joins a
// Gloo context per group it belongs to (TP, DP, EP; PP's sends and
// receives go through the pipeline group), then runs its step program
// (step_program.h) `warmup` times unmeasured and `steps` times measured.
// Compute is a spin on the clock for the op's milliseconds; DP buckets
// marked overlapped run on a second thread, in order, and the step's wait
// blocks for them, as DDP's Gloo backend does. Messages are float elements
// of the op's bytes (Gloo's CPU reductions have no bf16).
//
// Each op's duration is recorded: a rank that arrives late at a collective
// spends the least time in it, the others their wait for it, so the stage
// derives every rank's wait from the group's durations without comparing
// clocks across nodes (workload_timing.h).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "probes/workload/replay_report.h"
#include "probes/workload/step_program.h"

namespace gloo::rendezvous {
class Store;
}  // namespace gloo::rendezvous

namespace nodeprobe::workload {

class GlooReplay {
 public:
  ~GlooReplay();
  // Joins this rank's groups through `store` (every rank of the placement
  // with the same store), binding Gloo's TCP device to `bind_ip`.
  static absl::StatusOr<std::unique_ptr<GlooReplay>> Connect(const Placement& placement, int rank,
                                                             gloo::rendezvous::Store& store,
                                                             const std::string& bind_ip,
                                                             absl::Duration timeout);
  // Runs `program` warmup + steps times, then each kind of collective
  // alone (IsolatedOps); INTERNAL naming the op that failed.
  // `at_step`, when set, is called as each measured step starts and with
  // `steps` after the last (a burst's window: burst.h).
  absl::StatusOr<ReplayReport> Run(const std::vector<Op>& program, int warmup, int steps,
                                   const std::function<void(int)>& at_step = {});

 private:
  absl::Status TimeAlone(const std::vector<Op>& program, uint32_t first_tag, ReplayReport* report);
  struct Groups;
  explicit GlooReplay(std::unique_ptr<Groups> groups);
  std::unique_ptr<Groups> groups_;
};

}  // namespace nodeprobe::workload
