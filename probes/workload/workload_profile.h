// The profile's `workload:` section: the job whose communication pattern
// the workload stage replays (probes/workload/workload_shape.h), started
// from a named shape or written out, and the bars its steps are held to.
//   workload:
//     shape: llama2-70b-tp8-pp4   # a named start (`profile --explain` lists them)
//     tp: 2                       # then any key of the shape overrides it:
//     pp: 2                       # tp, pp, dp, ep, ranks_per_node, tp_across_nodes,
//     scale: 0.01                 # hidden, layers, seq, micro_batch(es), dtype,
//     steps: 20                   # params_b, experts, top_k, sequence_parallel,
//                                 # zero, compute_ms_per_layer, scale, warmup, steps
//     step_time_max_ms: 900       # WORKLOAD_STEP_SLOW above (FAIL)
//     step_cv_max: 0.1            # WORKLOAD_STEP_JITTER above (WARN)
//     comm_share_max: 0.6         # WORKLOAD_COMM_BOUND above (WARN)
//     skew_max_ms: 20             # the late rank's lateness that names it a straggler
//     burst_slowdown_max: 1.5     # WORKLOAD_BURST_STALLS above (run --burst)
//     communicators: {...}        # a job's own step (`workload from-nccl-log`)
//     programs: [...]
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "probes/workload/workload_shape.h"

namespace nodeprobe {

struct WorkloadRules {
  static constexpr char kSection[] = "workload";  // its top-level key
  std::string shape_name;                         // "" : the defaults of WorkloadShape
  // The keys the profile wrote, applied over the named shape whatever
  // their order in the file.
  std::map<std::string, std::function<void(workload::WorkloadShape&)>> overrides;
  std::optional<double> step_time_max_ms;
  double step_cv_max = 0.10;
  double comm_share_max = 0.60;
  // Unset: 5% of the median step time (WORKLOAD_STRAGGLER's default bar).
  std::optional<double> skew_max_ms;
  // A burst's step p99 over the steps' before it: WORKLOAD_BURST_STALLS above.
  double burst_slowdown_max = 1.5;

  // The shape to replay: the named one (or the defaults), then the keys.
  workload::WorkloadShape Shape() const;
};

// The named shapes (`workload.shape: NAME`), each a published model's
// dimensions with its usual layout; nullopt for an unknown name.
std::optional<workload::WorkloadShape> NamedShape(const std::string& name);
std::vector<std::string> NamedShapes();

}  // namespace nodeprobe
