// perftest's formulas on timestamp arrays whose answers are worked out by
// hand in each test.
#include "probes/transfer/transfer_stats.h"

#include "gtest/gtest.h"

namespace nodeprobe::transfer {
namespace {

TEST(ComputeBandwidthTest, AverageUsesFirstPostToLastCompletion) {
  // 4 messages of 1000 bytes posted at t=0, completing at 1, 2, 3, 4 µs:
  // 4000 B × 8 / 4000 ns = 8 Gb/s; MsgRate = 4 / 4 µs = 1 Mpps.
  BandwidthFigures f = ComputeBandwidth(1000, 0, {1000, 2000, 3000, 4000});
  EXPECT_DOUBLE_EQ(f.avg_gbps, 8.0);
  EXPECT_DOUBLE_EQ(f.msg_rate_mpps, 1.0);
  EXPECT_DOUBLE_EQ(f.seconds, 4e-6);
  // 4000 B / 2^20 / 4e-6 s = 953.674... MiB/s
  EXPECT_NEAR(f.avg_mibps, 953.6743, 1e-3);
}

TEST(ComputeBandwidthTest, PeakIsBestSingleCompletionInterval) {
  // Intervals: 1000 (first post->first completion), 3000, 500, 1500 ns.
  // Best is 500 ns: 1000 B × 8 / 500 ns = 16 Gb/s.
  BandwidthFigures f = ComputeBandwidth(1000, 0, {1000, 4000, 4500, 6000});
  EXPECT_DOUBLE_EQ(f.peak_gbps, 16.0);
  // Average: 4000 B over 6000 ns = 5.333 Gb/s.
  EXPECT_NEAR(f.avg_gbps, 5.3333333, 1e-6);
}

TEST(ComputeBandwidthTest, EmptyOrBackwardsTimesGiveZero) {
  EXPECT_EQ(ComputeBandwidth(1000, 0, {}).avg_gbps, 0);
  EXPECT_EQ(ComputeBandwidth(1000, 5000, {5000}).avg_gbps, 0);
}

// The same 8 messages seen three ways: one completion per poll, in batches
// of 4 (two polls), and under selective signaling (a signaled completion
// every 4th message). Average and peak agree; before, a batch made the
// peak one message over the whole interval (4x too low here).
TEST(CompletionTallyTest, BatchesAndSelectiveSignalingGiveTheSameFigures) {
  // 1000-byte messages completing every 250 ns from t=250 to t=2000.
  CompletionTally one(0);
  for (int i = 1; i <= 8; ++i) one.Record(1, 250 * i);
  CompletionTally batched(0);
  batched.Record(4, 1000);  // one poll returns 4
  batched.Record(4, 2000);
  BandwidthFigures a = one.Figures(1000), b = batched.Figures(1000);
  // 8000 B over 2000 ns = 32 Gb/s; every interval is 250 ns per message.
  EXPECT_DOUBLE_EQ(a.avg_gbps, 32.0);
  EXPECT_DOUBLE_EQ(b.avg_gbps, 32.0);
  EXPECT_DOUBLE_EQ(a.peak_gbps, 32.0);
  EXPECT_DOUBLE_EQ(b.peak_gbps, 32.0);
  EXPECT_DOUBLE_EQ(b.msg_rate_mpps, 4.0);
  EXPECT_EQ(b.seconds, a.seconds);
  // A faster burst inside: 4 messages in 500 ns is 64 Gb/s peak.
  CompletionTally burst(0);
  burst.Record(4, 1000);
  burst.Record(4, 1500);
  EXPECT_DOUBLE_EQ(burst.Figures(1000).peak_gbps, 64.0);
  // Nothing recorded, or an empty poll: zeros, not a division by zero.
  CompletionTally none(0);
  none.Record(0, 100);
  EXPECT_EQ(none.Figures(1000).avg_gbps, 0);
  EXPECT_EQ(none.count(), 0u);
}

TEST(CompletionTallyTest, MemoryDoesNotGrowWithTheRun) {
  // A 10-minute 2-byte run at 100 Mpps is 6e10 completions: the tally is a
  // few words regardless.
  EXPECT_LE(sizeof(CompletionTally), 48u);
  CompletionTally t(0);
  for (int64_t i = 1; i <= 1000000; ++i) t.Record(1, i * 10);
  EXPECT_EQ(t.count(), 1000000u);
  EXPECT_DOUBLE_EQ(t.Figures(2).msg_rate_mpps, 100.0);
}

TEST(ComputeLatencyTest, HalvesRoundTripsAndDropsTwoLargest) {
  // RTTs 2..20 µs step 2 plus two outliers; after dropping 1000 and 900 the
  // ten samples are 2,4,...,20 µs RTT -> 1..10 µs one-way.
  std::vector<int64_t> rtt;
  for (int i = 1; i <= 10; ++i) rtt.push_back(i * 2000);
  rtt.push_back(1000000);
  rtt.push_back(900000);
  v1::LatencyStats s = ComputeLatency(rtt);
  EXPECT_EQ(s.samples(), 10u);
  EXPECT_DOUBLE_EQ(s.min_us(), 1.0);
  EXPECT_DOUBLE_EQ(s.max_us(), 10.0);
  EXPECT_DOUBLE_EQ(s.avg_us(), 5.5);
  // Nearest rank: median = ceil(0.5×10) = 5th = 5 µs; p99 = ceil(9.9) =
  // 10th = 10 µs; p99.9 likewise.
  EXPECT_DOUBLE_EQ(s.median_us(), 5.0);
  EXPECT_DOUBLE_EQ(s.p99_us(), 10.0);
  EXPECT_DOUBLE_EQ(s.p999_us(), 10.0);
}

TEST(ComputeLatencyTest, PercentilesOnAThousandSamples) {
  // RTT k µs for k = 1..1000, plus two dropped outliers: one-way k/2 µs.
  std::vector<int64_t> rtt;
  for (int k = 1; k <= 1000; ++k) rtt.push_back(k * 1000);
  rtt.push_back(5000000);
  rtt.push_back(6000000);
  v1::LatencyStats s = ComputeLatency(rtt);
  EXPECT_DOUBLE_EQ(s.median_us(), 250.0);  // 500th: 500 µs RTT
  EXPECT_DOUBLE_EQ(s.p99_us(), 495.0);     // 990th
  EXPECT_DOUBLE_EQ(s.p999_us(), 499.5);    // 999th
  EXPECT_DOUBLE_EQ(s.max_us(), 500.0);
}

TEST(GbpsTest, UsesDecimalGigabits) {
  EXPECT_DOUBLE_EQ(Gbps(125000000, 1000000000), 1.0);  // 1e9 bit in 1 s
}

}  // namespace
}  // namespace nodeprobe::transfer
