// File: statistics.h
// The one place nodeprobe's figures are summarised: medians, percentiles,
// robust spread, coefficient of variation, trimmed means. Transfers,
// latency, the cluster and collective judgements across nodes, soak series,
// storage calls and congestion read their figures through these, so the
// same samples are never judged by two different rules.
//
// Percentiles have one rule, perftest's (print_report_lat, the rule
// ib_write_lat prints and nodeprobe's transfer figures compare 1:1 with):
// of n samples sorted ascending, percentile q is the sample at 0-based
// index ceil(q x n), the last sample when that index is past the end.
// That is the nearest rank one above ceil(q x n) - 1: a p99 of 100
// samples is the largest, never an interpolation between two, so a
// reported p99 is always a latency some call really had.
//
// The median of an even count is the mean of the two middle samples (as
// perftest's get_median and every textbook). The robust spread is the
// median absolute deviation relative to the median, x 1.4826 (the MAD's
// scale for a normal distribution, so it reads as a coefficient of
// variation on clean data while one outlier cannot move it).
#pragma once

#include <cstddef>
#include <vector>

namespace nodeprobe::stats {

// The median (0 for no samples).
double Median(std::vector<double> values);

// Percentile q (0..1) of `sorted` (ascending) by the rule above; `counted`
// is n when fewer samples count than the array holds (perftest counts all
// but its two largest yet reads the whole array), else the array's size.
// 0 for an empty array.
double SortedPercentile(const std::vector<double>& sorted, double q, size_t counted);
double SortedPercentile(const std::vector<double>& sorted, double q);
// The same of unsorted samples.
double Percentile(std::vector<double> values, double q);

// The median of `sorted` (ascending) without its element at `skip`: each
// of many nodes against the others, from one sort.
double SortedMedianWithout(const std::vector<double>& sorted, size_t skip);

double Mean(const std::vector<double>& values);

// Sample standard deviation / mean (n - 1 in the denominator); 0 with
// fewer than two samples or a mean that is not above 0.
double CoefficientOfVariation(const std::vector<double>& values);

// 1.4826 x the median of |v / center - 1|: spread relative to `center`
// (0 when center is 0 or there are no samples).
double RelativeMad(const std::vector<double>& values, double center);

// 1.4826 x the median of |v - median|: the absolute robust spread, for
// figures whose median may be 0 (a rank's lateness). 0 without samples.
double Mad(const std::vector<double>& values);

// The standard error of the median of `n` samples spread as `values` are:
// sqrt(pi/2) x Mad(values) / sqrt(n) (the median's asymptotic error on
// normal data). 0 for n = 0.
double MedianStandardError(const std::vector<double>& values, size_t n);

// The mean of what is left when the lowest and highest `fraction` (0 ..
// 0.5) of the samples are set aside, at least one sample kept.
double TrimmedMean(std::vector<double> values, double fraction);

}  // namespace nodeprobe::stats
