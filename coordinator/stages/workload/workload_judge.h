// The workload stage's judgement of a replayed step (probes/workload/
// step_program.h): step time, its spread, the share of it spent waiting in
// communication, and the late rank.
//
// The late rank: at every collective each rank arrives (finishes its work
// before it) and then waits for the last arrival; a rank's wait is the time
// from its arrival to the op's start. The rank the others wait for waits
// least. Per step, a rank's lateness is the median of the other ranks'
// waits minus its own; over the steps, the rank with the highest median
// lateness is the candidate. It is a straggler only when
// - it is the latest rank in at least half of the steps (a pattern, never
//   one step),
// - its median lateness passes the bar (workload.skew_max_ms, else 5% of
//   the median step), and
// - it passes the noise: noise_sigmas times the robust spread (MAD) of the
//   other ranks' lateness.
// A first finding is WARN; the stage measures again and a second that names
// the same rank makes it FAIL (the cluster stage's rule).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coordinator/stages/workload/workload_profile.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::coordinator {

// One measured step of every rank.
struct StepTimes {
  std::vector<double> step_ms;     // per rank: the step's wall time
  std::vector<double> exposed_ms;  // per rank: time blocked in communication
  std::vector<double> wait_ms;     // per rank: summed waits at the step's collectives
};

struct WorkloadJudgement {
  double step_p50_ms = 0, step_p99_ms = 0, step_max_ms = 0, step_cv = 0;
  double comm_share = 0;  // median over steps of the exposed share (median rank)
  int late_rank = -1;     // -1: none stands out
  double late_ms = 0;     // the candidate's median lateness
  double late_share = 0;  // share of the steps it was the latest
  double bar_ms = 0;      // the lateness bar applied
  double noise_ms = 0;    // the noise bar applied
  bool straggler = false;
  bool too_noisy = false;
};

// `noise_sigmas` and `max_spread` from the profile's transfer: section,
// as every peer judgement uses them.
WorkloadJudgement JudgeSteps(const std::vector<StepTimes>& steps, const WorkloadRules& rules,
                             double noise_sigmas, double max_spread);

// The findings of a judgement into `run`; `rank_node` names each rank's
// node; `confirmed`: a second measurement named the same late rank.
void AddWorkloadFindings(const WorkloadJudgement& j, const WorkloadRules& rules,
                         const std::vector<std::string>& rank_node, bool confirmed,
                         google::protobuf::RepeatedPtrField<v1::Finding>* findings);

}  // namespace nodeprobe::coordinator
