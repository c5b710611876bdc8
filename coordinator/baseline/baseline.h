// A figure's baseline for one node class: the distribution of what the
// class measured in accepted runs (median, its robust spread, how many and
// when), and a new value judged against it. The rule is the peer rule's,
// noise-aware: a value is a regression only when it falls below the median
// by more than the profile's fraction AND by more than `noise_sigmas` of
// the baseline's own spread (a figure that always scatters 5% is not
// regressed by a 5% low); a class with fewer than `min_runs` accepted runs
// is "not enough runs", never judged on two samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nodeprobe::baseline {

struct Sample {
  double value = 0;
  int64_t when = 0;  // Unix seconds of the run
  std::string run_id;
};

struct Baseline {
  double median = 0;
  double spread = 0;  // 1.4826 x MAD: a robust standard deviation
  size_t n = 0;
  int64_t first = 0, last = 0;
};
Baseline BaselineOf(const std::vector<Sample>& samples);

struct RegressionRules {
  size_t min_runs = 5;
  double warn = 0.05;  // fraction below the median (above, for a lower-is-better figure)
  double fail = 0.10;
  double noise_sigmas = 3;
};

struct Regression {
  enum State { kNotEnoughRuns, kWithin, kWarn, kFail };
  State state = kNotEnoughRuns;
  double change = 0;  // fraction worse than the median (negative: better)
  std::string why;    // the numbers, in words
};

// `value` of a figure that is better higher (bandwidth) or lower (latency,
// step time), against `b`.
Regression Judge(double value, const Baseline& b, const RegressionRules& rules,
                 bool higher_is_better);

}  // namespace nodeprobe::baseline
