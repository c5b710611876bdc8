// The judged figures of a stored run, each with the node whose class it
// belongs to, so baselines (baseline.h) can be built per class and figure
// from accepted runs: a pair's transfer (per rail and op: bandwidth, or
// median latency) belongs to its sending node; the run-wide figures
// (collective bus bandwidth per size, the workload's step p50) to each
// node of the run, since every node shaped them.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "coordinator/baseline/baseline.h"
#include "coordinator/baseline/node_class.h"
#include "nodeprobe/v1/baseline_service.pb.h"
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

// What operators said of baselines (baseline_service.proto), as said
// (who, when: for the reader) and indexed: runs that no longer count, and
// classes pinned at the runs accepted up to one run.
struct Marks {
  v1::BaselineMarks said;
  std::set<std::string> forgotten;              // run ids
  std::map<std::string, int64_t> pinned_until;  // class key -> Unix seconds
  // Whether `run` counts in `class_key`'s baseline.
  bool Counts(const v1::StageRun& run, const std::string& class_key) const;
  // The class's pin, or nullptr.
  const v1::BaselinePin* PinOf(const std::string& class_key) const;
};
Marks MarksOf(v1::BaselineMarks said);

// What baselines are built from: stored runs and the operators' marks.
struct History {
  std::vector<v1::StageRun> runs;
  Marks marks;
};

// The class keys of `run`'s nodes (those with a report).
std::set<std::string> ClassKeysOf(const v1::StageRun& run);

// Per class key, per figure: the baseline of the accepted runs among
// `runs` that `marks` lets count, with each class's parts (for the
// evidence).
struct ClassBaselines {
  NodeClass node_class;
  std::map<std::string, Baseline> figures;
  std::map<std::string, bool> higher_is_better;
};
std::map<std::string, ClassBaselines> BaselinesOf(const std::vector<v1::StageRun>& runs,
                                                  const Marks& marks = {});

}  // namespace nodeprobe::baseline
