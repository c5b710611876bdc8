#include "coordinator/baseline/baseline.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "platform/statistics.h"

namespace nodeprobe::baseline {

Baseline BaselineOf(const std::vector<Sample>& samples) {
  Baseline b;
  if (samples.empty()) return b;
  std::vector<double> v;
  b.first = b.last = samples.front().when;
  for (const Sample& s : samples) {
    v.push_back(s.value);
    b.first = std::min(b.first, s.when);
    b.last = std::max(b.last, s.when);
  }
  b.n = v.size();
  b.median = stats::Median(v);
  b.spread = stats::Mad(v);
  return b;
}

Regression Judge(double value, const Baseline& b, const RegressionRules& rules,
                 bool higher_is_better) {
  Regression r;
  if (b.n < rules.min_runs || b.median == 0) {
    r.why = absl::StrFormat("not enough runs: the class has %d accepted, the rule needs %d", b.n,
                            rules.min_runs);
    return r;
  }
  const double worse = higher_is_better ? b.median - value : value - b.median;
  r.change = worse / std::fabs(b.median);
  const double noise = rules.noise_sigmas * b.spread;
  const bool beyond_noise = worse > noise;
  r.state = !beyond_noise || r.change <= rules.warn ? Regression::kWithin
            : r.change > rules.fail                 ? Regression::kFail
                                                    : Regression::kWarn;
  r.why = absl::StrFormat(
      "%.4g against the class's median %.4g (n %d, spread %.3g): %.1f%% %s, %s %.3g (%.3g "
      "x its spread)",
      value, b.median, b.n, b.spread, 100 * std::fabs(r.change), r.change > 0 ? "worse" : "better",
      beyond_noise ? "beyond the noise bar" : "within the noise bar", noise, rules.noise_sigmas);
  return r;
}

}  // namespace nodeprobe::baseline
