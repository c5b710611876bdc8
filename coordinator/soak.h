// File: soak.h
// A soak (`run --stage two-node|cluster --soak DURATION`): the stage's
// transfers repeated, round after round (the cluster: pass after pass over
// its pattern, cluster_stage.h), until the duration has passed,
// then judged over time rather than once. Each direction (from, to, rail,
// op) becomes a series of figures with its mean, range, spread (stddev /
// mean) and drift (the last third's mean against the first third's):
//   (its findings, with severity and remedy: probes/framework/framework_findings.h)
// A series needs 3 figures to be judged. Kernel events and counter deltas
// of the whole window come with the run as in any stage (each transfer's
// counters; stage_kernel_events.h for the run's span).
#pragma once

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "coordinator/pair_transfers.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe {
struct SoakRules;
}

namespace nodeprobe::coordinator {

// Measures rounds 2, 3, ... between `a` and `b` (no path MTU; round 1 is
// the stage's own) until `until` or `deadline`, numbering their pairs.
void RunSoakRounds(v1::StageRun* run, AgentSession& a, AgentSession& b,
                   const v1::RunStageRequest& request, absl::Time until, absl::Time deadline,
                   const ProgressFn& progress);

// run->soak from the run's transfers (retests left out), and the findings
// above in run->findings.
void JudgeSoak(const SoakRules& rules, double duration_s, v1::StageRun* run);

}  // namespace nodeprobe::coordinator
