// The profile's `baseline:` section: whether a run's figures are also
// judged against what each node's class measured in earlier accepted runs
// (baseline.h, baseline_judge.h), and the rule's numbers.
//   baseline:
//     use: true              # off by default: a new fleet has no history
//     min_runs: 5            # fewer accepted runs in the class: not judged
//     regression_warn: 0.05  # fraction worse than the class's median
//     regression_fail: 0.10
//     noise_sigmas: 3        # and beyond this many of the baseline's spreads
#pragma once

#include <cstddef>

namespace nodeprobe {

struct BaselineRules {
  static constexpr char kSection[] = "baseline";  // its top-level key
  bool use = false;
  size_t min_runs = 5;
  double regression_warn = 0.05;
  double regression_fail = 0.10;
  double noise_sigmas = 3;
};

}  // namespace nodeprobe
