#include "platform/statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace nodeprobe::stats {

// The MAD's scale for a normal distribution.
constexpr double kMadScale = 1.4826;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t n = v.size();
  std::nth_element(v.begin(), v.begin() + static_cast<long>(n / 2), v.end());
  const double upper = v[n / 2];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<long>(n / 2));
  return (lower + upper) / 2;
}

double SortedPercentile(const std::vector<double>& sorted, double q, size_t counted) {
  if (sorted.empty()) return 0;
  const auto k = static_cast<size_t>(std::ceil(q * static_cast<double>(counted)));
  return sorted[std::min(k, sorted.size() - 1)];
}

double SortedPercentile(const std::vector<double>& sorted, double q) {
  return SortedPercentile(sorted, q, sorted.size());
}

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return SortedPercentile(values, q);
}

double SortedMedianWithout(const std::vector<double>& sorted, size_t skip) {
  if (sorted.size() < 2) return 0;
  const size_t n = sorted.size() - 1;  // the others
  auto at = [&](size_t i) { return sorted[i < skip ? i : i + 1]; };
  return n % 2 ? at(n / 2) : (at(n / 2 - 1) + at(n / 2)) / 2;
}

double Mean(const std::vector<double>& v) {
  return v.empty() ? 0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double CoefficientOfVariation(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double mean = Mean(v);
  if (mean <= 0) return 0;
  double sq = 0;
  for (double x : v) sq += (x - mean) * (x - mean);
  return std::sqrt(sq / static_cast<double>(v.size() - 1)) / mean;
}

double RelativeMad(const std::vector<double>& values, double center) {
  if (values.empty() || center == 0) return 0;
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v / center - 1));
  return kMadScale * Median(std::move(deviations));
}

double Mad(const std::vector<double>& values) {
  if (values.empty()) return 0;
  const double center = Median(values);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - center));
  return kMadScale * Median(std::move(deviations));
}

double MedianStandardError(const std::vector<double>& values, size_t n) {
  if (n == 0) return 0;
  return std::sqrt(std::acos(-1.0) / 2) * Mad(values) / std::sqrt(static_cast<double>(n));
}

double TrimmedMean(std::vector<double> v, double fraction) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double f = std::clamp(fraction, 0.0, 0.5);
  size_t cut = static_cast<size_t>(std::floor(f * static_cast<double>(v.size())));
  if (2 * cut >= v.size()) cut = (v.size() - 1) / 2;
  double sum = 0;
  for (size_t i = cut; i < v.size() - cut; ++i) sum += v[i];
  return sum / static_cast<double>(v.size() - 2 * cut);
}

}  // namespace nodeprobe::stats
