#include "platform/statistics.h"

#include <vector>

#include "gtest/gtest.h"

namespace nodeprobe::stats {
namespace {

TEST(StatisticsTest, MedianOfOddAndEvenCounts) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

// perftest's rule: 0-based index ceil(q x n), the last past the end.
TEST(StatisticsTest, PercentileIsPerftestsRank) {
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(SortedPercentile(hundred, 0.99), 100);  // index 99
  EXPECT_EQ(SortedPercentile(hundred, 0.5), 51);    // index 50
  EXPECT_EQ(SortedPercentile(hundred, 0.0), 1);
  std::vector<double> thousand;
  for (int i = 1; i <= 1000; ++i) thousand.push_back(i);
  EXPECT_EQ(SortedPercentile(thousand, 0.99), 991);  // index 990
  EXPECT_EQ(SortedPercentile(thousand, 0.999), 1000);
  // perftest counts n - 2 samples and reads the whole array.
  EXPECT_EQ(SortedPercentile(thousand, 0.99, 998), 990);  // index ceil(988.02) = 989
  EXPECT_EQ(Percentile({5, 1, 4, 2, 3}, 0.5), 4);         // index ceil(2.5) = 3
  EXPECT_EQ(SortedPercentile({}, 0.99), 0);
}

TEST(StatisticsTest, MedianWithoutOneLeavesTheOthers) {
  const std::vector<double> sorted = {1, 2, 3, 10};
  EXPECT_EQ(SortedMedianWithout(sorted, 3), 2);
  EXPECT_EQ(SortedMedianWithout(sorted, 0), 3);
  EXPECT_EQ(SortedMedianWithout({7}, 0), 0);
}

TEST(StatisticsTest, SpreadFigures) {
  EXPECT_NEAR(CoefficientOfVariation({9, 10, 11}), 0.1, 1e-12);  // sample sd 1, mean 10
  EXPECT_EQ(CoefficientOfVariation({10}), 0);
  // One wild value moves the MAD not at all: |dev| = 0, 0.1, 0.1, 9.
  EXPECT_NEAR(RelativeMad({10, 11, 9, 100}, 10), 1.4826 * 0.1, 1e-12);
  EXPECT_EQ(RelativeMad({1, 2}, 0), 0);
  EXPECT_EQ(TrimmedMean({1, 2, 3, 4, 100}, 0.2), 3);
  EXPECT_EQ(TrimmedMean({1, 100}, 0.5), 50.5);  // at least one kept each side
  EXPECT_EQ(Mean({}), 0);
}

// The absolute MAD: one outlier does not move it, and a median of 0 is fine.
TEST(StatisticsTest, MadIsAbsoluteAndRobust) {
  EXPECT_DOUBLE_EQ(stats::Mad({}), 0);
  EXPECT_DOUBLE_EQ(stats::Mad({-1, 0, 1}), 1.4826);
  EXPECT_DOUBLE_EQ(stats::Mad({-1, 0, 1, 0, 1000}), 1.4826);
  EXPECT_NEAR(stats::MedianStandardError({-1, 0, 1}, 4), 1.2533 * 1.4826 / 2, 1e-3);
  EXPECT_DOUBLE_EQ(stats::MedianStandardError({-1, 0, 1}, 0), 0);
}

}  // namespace
}  // namespace nodeprobe::stats
