// A job's own training step, rebuilt from its NCCL log (coll_log.h) so the
// workload stage can replay it on the nodes under acceptance: the same
// communicators, sizes and order (`nodeprobe workload from-nccl-log`).
//
// How the step is found, per rank (every rank of every communicator must be
// in the log, each communicator's members known from its Init line):
// - the log is cut where every communicator's members had all issued the
//   same number of ops (a rank that got further, or a log cut mid-step,
//   adds nothing unmatched);
// - the step is the period of the rank's op sequence before the cut: the
//   shortest shift p under which the sequence agrees best with itself
//   (op, communicator, bytes and peer); the last p ops are the step, and
//   how many of the earlier windows of p ops equal it says how steady the
//   log was;
// - then checked whole: each communicator's members run the same
//   collectives in the same order, every send has its receive, and the
//   blocking replay (a collective waits for all its members, a receive for
//   its send) cannot wait on itself. A step that fails any of these is
//   refused with the reason, never replayed approximately.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "probes/workload/coll_log.h"
#include "probes/workload/workload_shape.h"

namespace nodeprobe::workload {

struct LoggedRankSummary {
  std::string host;
  uint32_t pid = 0;
  int cuda_dev = -1;
  uint64_t ops = 0;      // in the log
  int step_ops = 0;      // in one step
  int steps_seen = 0;    // whole steps before the cut
  double agreement = 0;  // share of those equal to the replayed one
};

struct LoggedCommSummary {
  std::string name;  // "c0": as the profile names it
  std::string id;    // NCCL's commId (or the trace's hash)
  int nranks = 0;
};

struct LoggedJob {
  LoggedStep step;
  std::vector<LoggedCommSummary> comms;  // [i] is step.communicators[i]
  std::vector<LoggedRankSummary> ranks;  // [job rank]
  int ranks_per_node = 1;
  std::vector<std::string> hosts;  // in node order
  std::vector<std::string> notes;  // what the reader had to decide, for the user
};

// The job in `log`; FAILED_PRECONDITION with the reason and what to set or
// capture (a log without COLL or Init lines, ranks missing, two jobs, a
// step that does not repeat or does not line up).
absl::StatusOr<LoggedJob> BuildLoggedJob(const CollLogReader& log);

// Per communicator as each process held it: ops by kind with their bytes,
// for the user (and the log without Init lines, where this is all there is).
std::string DescribeLog(const CollLogReader& log);

// The `workload:` section that replays `job`, with comments saying where it
// came from (`sources`) and how steady the step was.
std::string LoggedWorkloadYaml(const LoggedJob& job, const std::vector<std::string>& sources);

}  // namespace nodeprobe::workload
