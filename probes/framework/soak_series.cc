#include "probes/framework/soak_series.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_format.h"
#include "platform/statistics.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe {

using stats::Mean;

SeriesStats StatsOf(const std::vector<double>& g) {
  SeriesStats s;
  if (g.empty()) return s;
  s.mean = Mean(g);
  s.min = *std::min_element(g.begin(), g.end());
  s.max = *std::max_element(g.begin(), g.end());
  s.spread = stats::CoefficientOfVariation(g);
  if (g.size() >= 3) {
    const long third = static_cast<long>(g.size() / 3);
    const double first = Mean(std::vector<double>(g.begin(), g.begin() + third));
    s.drift = first > 0 ? Mean(std::vector<double>(g.end() - third, g.end())) / first - 1 : 0;
  }
  return s;
}

void JudgeSeries(const std::string& name, const std::vector<double>& g, const std::string& unit,
                 double max_spread, double max_drift,
                 google::protobuf::RepeatedPtrField<v1::Finding>* findings) {
  if (g.size() < 3) return;
  const SeriesStats s = StatsOf(g);
  if (s.spread > max_spread) {
    AddFinding(findings, findings::kSoakUnstable.code, name,
               absl::StrFormat("%s varied %.0f%% over %d figures (%.2f to %.2f %s, mean "
                               "%.2f); soak.max_spread is %.0f%%",
                               name, 100 * s.spread, static_cast<int>(g.size()), s.min, s.max, unit,
                               s.mean, 100 * max_spread));
  }
  if (-s.drift <= max_drift) return;
  const long third = static_cast<long>(g.size() / 3);
  const std::vector<double> first(g.begin(), g.begin() + third);
  const std::vector<double> last(g.end() - third, g.end());
  const bool trend =
      *std::max_element(last.begin(), last.end()) < *std::min_element(first.begin(), first.end());
  AddFinding(
      findings, findings::kSoakDrift.code, trend ? v1::FAIL : v1::WARN, name,
      absl::StrFormat("%s slowed %.0f%% from the first third of the soak (%.2f %s) "
                      "to the last (%.2f %s)%s; soak.max_drift is %.0f%%",
                      name, -100 * s.drift, Mean(first), unit, Mean(last), unit,
                      trend ? ", every late figure below every early one" : "", 100 * max_drift));
}

}  // namespace nodeprobe
