// Finding the slow part when the whole job is slow and no rank explains it
// (pairs all fine, the N-node job slow: a leaf's uplink, a spine link,
// adaptive routing). The nodes are split into halves, each made of whole
// units (a unit is what the shape needs whole: one model replica's nodes,
// or one node for data parallelism), and the job is run again on parts:
// - a half that is slow alone holds the cause: recurse into it;
// - when both halves are fast alone, the slowness lies between them:
//   each side is narrowed by running its halves with the other side (a
//   part that is fast with it is left out; when both parts are slow with
//   it, the side is whole: every node of it is slow with the other, as
//   behind one uplink);
// - two units left (the smallest a job can show a link with): each is
//   run with a unit known to be fine; the one slow there is the culprit,
//   and when neither is, it is the link between the two.
// Each level costs at most two runs, so a single slow node or a slow group
// of four or more units is found in at most 2 log2(N) runs (N units): at
// each level's worst the slow half is the second measured.
#pragma once

#include <functional>
#include <optional>
#include <vector>

namespace nodeprobe::coordinator {

struct Bisection {
  enum Kind {
    kUnresolved,  // a run could not be made, or the budget ran out
    kSet,         // `set` alone is slow (with any other node)
    kBetween,     // `a` and `b` are each fine alone and slow together
  };
  Kind kind = kUnresolved;
  std::vector<int> set;  // node indices
  std::vector<int> a, b;
  struct Run {
    std::vector<int> nodes;
    bool slow = false;
  };
  std::vector<Run> runs;  // every run, in order
};

// Whether the job on `nodes` (node indices) is slow; nullopt when it
// could not run (the search stops there).
using SlowOn = std::function<std::optional<bool>(const std::vector<int>& nodes)>;

// `units`: the nodes of each unit, in node order (the whole is known slow).
// At most `max_runs` runs.
Bisection Bisect(const std::vector<std::vector<int>>& units, const SlowOn& slow, int max_runs);

}  // namespace nodeprobe::coordinator
