// The judged figures of a stored run, each with the node whose class it
// belongs to, so baselines (baseline.h) can be built per class and figure
// from accepted runs: a pair's transfer (per rail and op: bandwidth, or
// median latency) belongs to its sending node; the run-wide figures
// (collective bus bandwidth per size, the workload's step p50) to each
// node of the run, since every node shaped them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "coordinator/baseline/baseline.h"
#include "coordinator/baseline/node_class.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::baseline {

struct Figure {
  std::string node;
  std::string name;  // "WRITE_BW gbps rail mlx5_0", "all_reduce busbw 1073741824 B"
  double value = 0;
  bool higher_is_better = true;
};
std::vector<Figure> FiguresOf(const v1::StageRun& run);

// A run the baselines learn from: done, and PASS or WARN.
bool Accepted(const v1::StageRun& run);

// Per class key, per figure: the baseline of the accepted runs among
// `runs`, with each class's parts (for the evidence).
struct ClassBaselines {
  NodeClass node_class;
  std::map<std::string, Baseline> figures;
  std::map<std::string, bool> higher_is_better;
};
std::map<std::string, ClassBaselines> BaselinesOf(const std::vector<v1::StageRun>& runs);

}  // namespace nodeprobe::baseline
