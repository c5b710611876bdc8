// The workload stage's judgement of a replayed step (probes/workload/
// step_program.h): step time, its spread, the share of it spent waiting in
// communication, and the late rank.
//
// The late rank: at every collective each rank arrives (finishes its work
// before it) and then waits for the last arrival of its group; the rank
// the others wait for waits least. A rank's lateness in a step is, summed
// over its collectives, the median of its group's other members' time in
// the op minus its own (workload_timing.h): the late one's is positive,
// its partners' negative, everyone else's near 0. Over the steps, the rank
// with the highest median lateness is the candidate. It is a straggler
// only when
// - it is the latest rank in at least 3/4 of the steps (a pattern, never
//   one step: a rank of 4 that is latest by chance does so 6 times in 8 in
//   0.4% of runs),
// - its median lateness passes the bar (workload.skew_max_ms, else 5% of
//   the median step), and
// - it passes the noise: the median of every other rank's lateness in
//   every step (pooled, so a few ranks still give a steady spread) plus
//   noise_sigmas standard errors of a median over that many steps.
// "Latest" counts a step whose highest lateness is on the candidate's node
// (its node's ranks share one host), and those ranks stay out of the noise.
//
// When no rank arrives late, a slow link (workload_timing.h's slow_ms: the
// node whose groups' transfers were slower than the same transfers
// elsewhere): its partners carry part of its excess, so the node is judged
// by its margin over the next node, step by step (the median margin must
// pass the bar and noise_sigmas standard errors of itself), and must be
// the slowest node in 3/4 of the steps.
// A first finding is WARN; the stage measures again and a second that names
// the same rank makes it FAIL (the cluster stage's rule).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "probes/workload/workload_profile.h"

namespace nodeprobe::coordinator {

// One measured step of every rank.
struct StepTimes {
  std::vector<double> step_ms;     // per rank: the step's wall time
  std::vector<double> exposed_ms;  // per rank: time blocked in communication
  std::vector<double> wait_ms;     // per rank: summed waits for its groups' last arrival
  std::vector<double> late_ms;     // per rank: its lateness (above)
  std::vector<double> slow_ms;     // per rank: its groups' transfers' excess (workload_timing.h)
};

struct WorkloadJudgement {
  enum Cause { kLate, kSlowTransfers };
  double step_p50_ms = 0, step_p99_ms = 0, step_max_ms = 0, step_cv = 0;
  double comm_share = 0;  // median over steps of the exposed share (median rank)
  int late_rank = -1;     // -1: none stands out
  double late_ms = 0;     // the candidate's median lateness
  double late_share = 0;  // share of the steps it was the latest
  double bar_ms = 0;      // the lateness bar applied
  double noise_ms = 0;    // the noise bar applied
  bool straggler = false;
  // A rank whose node led most steps by more than the bar, but within the
  // noise (-1: none): more steps decide (workload_stage.cc pools a second
  // measurement's) rather than calling the job healthy.
  int undecided_rank = -1;
  Cause cause = kLate;  // what made the late rank stand out
  bool too_noisy = false;
};

// `noise_sigmas` and `max_spread` from the profile's transfer: section,
// as every peer judgement uses them; `node_of[rank]` its node's index
// (empty: every rank on a node of its own).
WorkloadJudgement JudgeSteps(const std::vector<StepTimes>& steps, const WorkloadRules& rules,
                             double noise_sigmas, double max_spread, std::vector<int> node_of = {});

// The findings of a judgement into `run`; `rank_node` names each rank's
// node; `confirmed`: a second measurement named the same late rank.
void AddWorkloadFindings(const WorkloadJudgement& j, const WorkloadRules& rules,
                         const std::vector<std::string>& rank_node, bool confirmed,
                         google::protobuf::RepeatedPtrField<v1::Finding>* findings);

}  // namespace nodeprobe::coordinator
