// perftest's formulas on timestamp arrays whose answers are worked out by
// hand in each test.
#include "probes/transfer/transfer_stats.h"

#include <algorithm>

#include "gtest/gtest.h"

namespace nodeprobe::transfer {
namespace {

TEST(ComputeBandwidthTest, AverageUsesFirstPostToLastCompletion) {
  // 4 messages of 1000 bytes posted at t=0, completing at 1, 2, 3, 4 us:
  // 4000 B x 8 / 4000 ns = 8 Gb/s; MsgRate = 4 / 4 us = 1 Mpps.
  BandwidthFigures f = ComputeBandwidth(1000, {0, 0, 0, 0}, {1000, 2000, 3000, 4000});
  EXPECT_DOUBLE_EQ(f.avg_gbps, 8.0);
  EXPECT_DOUBLE_EQ(f.msg_rate_mpps, 1.0);
  EXPECT_DOUBLE_EQ(f.seconds, 4e-6);
  // 4000 B / 2^20 / 4e-6 s = 953.674... MiB/s
  EXPECT_NEAR(f.avg_mibps, 953.6743, 1e-3);
}

TEST(ComputeBandwidthTest, PeakIsTheBestPostToCompletionSpanPerMessage) {
  // Posted at 0, 100, 200, 300; completed at 1000, 4000, 4500, 6000.
  // Spans per message, (t_c[j] - t_p[i]) / (j - i + 1): i=0 gives 1000,
  // 2000, 1500, 1500; i=1 3900, 2200, 1967; i=2 4300, 2900; i=3 5700.
  // Best 1000 ns: 1000 B x 8 / 1000 ns = 8 Gb/s.
  BandwidthFigures f = ComputeBandwidth(1000, {0, 100, 200, 300}, {1000, 4000, 4500, 6000});
  EXPECT_DOUBLE_EQ(f.peak_gbps, 8.0);
  // Average: 4000 B over 6000 ns = 5.333 Gb/s.
  EXPECT_NEAR(f.avg_gbps, 5.3333333, 1e-6);
}

TEST(ComputeBandwidthTest, EmptyOrBackwardsTimesGiveZero) {
  EXPECT_EQ(ComputeBandwidth(1000, {}, {}).avg_gbps, 0);
  EXPECT_EQ(ComputeBandwidth(1000, {5000}, {5000}).avg_gbps, 0);
}

TEST(CqModerationTest, FollowsPerftestsDefaults) {
  EXPECT_EQ(CqModeration(65536 / 16, 128), 100u);  // DEF_CQ_MOD
  EXPECT_EQ(CqModeration(8192, 64), 64u);          // capped by tx_depth
  EXPECT_EQ(CqModeration(8193, 128), 1u);          // large messages: every one
  EXPECT_EQ(CqModeration(2, 0), 1u);
}

// perftest's print_report_bw peak, transcribed (cycles as nanoseconds,
// post_list 1): tcompleted[] is written only where a completion was
// reported, every cq_mod-th message and the last.
double PerftestPeakGbps(uint64_t size, const std::vector<int64_t>& tposted,
                        const std::vector<int64_t>& tcompleted, int cq_mod) {
  const int iters = static_cast<int>(tposted.size());
  double opt_delta = 1e300;
  for (int i = 0; i < iters; ++i) {
    for (int j = (i + 1 + cq_mod - 1) / cq_mod * cq_mod - 1; j < iters; j += cq_mod) {
      opt_delta = std::min(opt_delta, static_cast<double>(tcompleted[j] - tposted[i]) / (j - i + 1));
    }
    if (iters % cq_mod) {
      const int j = iters - 1;
      opt_delta = std::min(opt_delta, static_cast<double>(tcompleted[j] - tposted[i]) / (j - i + 1));
    }
  }
  return static_cast<double>(size) * 8.0 / opt_delta;
}

// A run under CQ moderation whose polls return several completions at
// once gives perftest's peak and average exactly.
TEST(BandwidthRecordTest, BatchedModeratedCompletionsMatchPerftest) {
  constexpr uint64_t kSize = 4096;
  constexpr int kIters = 1003;  // not a multiple of cq_mod: a signaled tail
  constexpr int kCqMod = 10;
  std::vector<int64_t> tposted(kIters), tcompleted(kIters, 0);
  BandwidthRecord record;
  // Posts every 30 ns with jitter; completions reported in polls that
  // return up to 3 signaled completions each, stamped with the poll's time.
  int64_t t = 1000;
  for (int i = 0; i < kIters; ++i) {
    t += 30 + (i * 7919) % 23;
    tposted[i] = t;
    ASSERT_TRUE(record.TimesPost(i));
    record.Posted(i, t);
  }
  std::vector<int> signaled;
  for (int j = kCqMod - 1; j < kIters; j += kCqMod) signaled.push_back(j);
  if (kIters % kCqMod) signaled.push_back(kIters - 1);
  // Message j completes ~2 us after its post; the loop polls every 170 ns
  // and a poll returns up to 3 of the signaled completions that are done.
  auto done_at = [&](int j) { return tposted[j] + 2000 + (j * 31) % 400; };
  size_t k = 0;
  for (int64_t poll = tposted[0]; k < signaled.size(); poll += 170) {
    for (int in_batch = 0; in_batch < 3 && k < signaled.size() && done_at(signaled[k]) <= poll;
         ++in_batch, ++k) {
      tcompleted[signaled[k]] = poll;
      record.Completed(signaled[k] + 1, poll);
    }
  }
  BandwidthFigures f = record.Figures(kSize);
  EXPECT_EQ(record.count(), static_cast<uint64_t>(kIters));
  EXPECT_DOUBLE_EQ(f.peak_gbps, PerftestPeakGbps(kSize, tposted, tcompleted, kCqMod));
  // bw_avg = size x iters / (tcompleted[iters-1] - tposted[0]).
  EXPECT_DOUBLE_EQ(f.avg_gbps, kSize * kIters * 8.0 /
                                   static_cast<double>(tcompleted[kIters - 1] - tposted[0]));
  EXPECT_DOUBLE_EQ(f.msg_rate_mpps,
                   kIters / (static_cast<double>(tcompleted[kIters - 1] - tposted[0]) / 1e9) / 1e6);
  EXPECT_GT(f.peak_gbps, f.avg_gbps);
}

TEST(BandwidthRecordTest, MemoryIsFixedBeforeTheRun) {
  // A long run: post times beyond the window are not even asked for, and
  // the record's buffers never grow past what the constructor reserved.
  BandwidthRecord record(100);
  uint64_t timed = 0;
  for (uint64_t i = 0; i < 1000000; ++i) {
    if (record.TimesPost(i)) {
      record.Posted(i, static_cast<int64_t>(i) * 10);
      ++timed;
    }
    if (i % 16 == 15) record.Completed(i + 1, static_cast<int64_t>(i) * 10 + 100);
  }
  EXPECT_EQ(timed, 100u);
  EXPECT_EQ(record.count(), 1000000u);
  // 1e6 messages over 9,999,990 + 100 - 0 ns.
  EXPECT_NEAR(record.Figures(2).msg_rate_mpps, 100.0, 0.01);
  // A completion that reports nothing new changes nothing.
  record.Completed(5, 1);
  EXPECT_EQ(record.count(), 1000000u);
}

TEST(ComputeLatencyTest, HalvesRoundTripsAndDropsTwoLargest) {
  // RTTs 2..20 µs step 2 plus two outliers: the ten smallest (1..10 µs
  // one-way) make the median and the average; perftest reads t_max and the
  // percentiles in the whole sorted array at index m = 10: the 900 µs RTT.
  std::vector<int64_t> rtt;
  for (int i = 1; i <= 10; ++i) rtt.push_back(i * 2000);
  rtt.push_back(1000000);
  rtt.push_back(900000);
  v1::LatencyStats s = ComputeLatency(rtt);
  EXPECT_EQ(s.samples(), 10u);
  EXPECT_DOUBLE_EQ(s.min_us(), 1.0);
  EXPECT_DOUBLE_EQ(s.max_us(), 450.0);
  EXPECT_DOUBLE_EQ(s.avg_us(), 5.5);
  // An even count's median is the mean of the middle two (5, 6 µs); p99
  // is index ceil(9.9) = 10.
  EXPECT_DOUBLE_EQ(s.median_us(), 5.5);
  EXPECT_DOUBLE_EQ(s.p99_us(), 450.0);
  EXPECT_DOUBLE_EQ(s.p999_us(), 450.0);
}

TEST(ComputeLatencyTest, PercentilesOnAThousandSamples) {
  // RTT k µs for k = 1..1000, plus two outliers: one-way k/2 µs; m = 1000.
  std::vector<int64_t> rtt;
  for (int k = 1; k <= 1000; ++k) rtt.push_back(k * 1000);
  rtt.push_back(5000000);
  rtt.push_back(6000000);
  v1::LatencyStats s = ComputeLatency(rtt);
  EXPECT_DOUBLE_EQ(s.median_us(), 250.25);  // mean of the 500th and 501st: 500.5 µs RTT
  EXPECT_DOUBLE_EQ(s.p99_us(), 495.5);      // index 990 (0-based): 991 µs RTT, as perftest
  EXPECT_DOUBLE_EQ(s.p999_us(), 500.0);     // index 999: 1000 µs RTT
  EXPECT_DOUBLE_EQ(s.max_us(), 2500.0);     // index m = 1000: the smaller outlier
}

// perftest's rank for t_max and p99.9 (print_report_lat: delta[m] and
// delta[ceil(0.999 m)] with m = N - 2), one rank above what dropping the
// two largest and clamping to the last would give.
TEST(ComputeLatencyTest, TmaxAndP999AreAtPerftestsRank) {
  std::vector<int64_t> rtt;
  for (int k = 1; k <= 1000; ++k) rtt.push_back(k * 1000);  // m = 998
  v1::LatencyStats s = ComputeLatency(rtt);
  EXPECT_DOUBLE_EQ(s.max_us(), 499.5);   // index 998: 999 µs RTT (not 998)
  EXPECT_DOUBLE_EQ(s.p999_us(), 499.5);  // index ceil(997.002) = 998 (not 997)
  EXPECT_DOUBLE_EQ(s.p99_us(), 495.0);   // index ceil(988.02) = 989: 990 µs RTT
  EXPECT_EQ(s.samples(), 998u);
}

TEST(BidirectionalTest, TheReverseDirectionIsAddedMessageRateToo) {
  v1::TransferResult mine;
  mine.set_bytes(1000000 * 64);
  mine.set_bw_avg_gbps(0.512);
  mine.set_msg_rate_mpps(1.0);
  v1::TransferDone theirs;
  theirs.set_bytes(500000 * 64);  // 0.5 M messages of 64 B in 1 s
  theirs.set_first_ns(0);
  theirs.set_last_ns(1000000000);
  AddReverseDirection(theirs, 64, &mine);
  EXPECT_DOUBLE_EQ(mine.msg_rate_mpps(), 1.5);
  EXPECT_DOUBLE_EQ(mine.bw_avg_gbps(), 0.512 + 0.256);
  EXPECT_EQ(mine.bytes(), 1500000u * 64);
}

TEST(GbpsTest, UsesDecimalGigabits) {
  EXPECT_DOUBLE_EQ(Gbps(125000000, 1000000000), 1.0);  // 1e9 bit in 1 s
}

}  // namespace
}  // namespace nodeprobe::transfer

namespace nodeprobe::transfer {
namespace {

TEST(IntervalTest, TheSpreadLeavesTheRampOutAndNeedsEnoughIntervals) {
  EXPECT_EQ(IntervalCv({1, 10, 10}), 0);           // too short to say
  EXPECT_DOUBLE_EQ(IntervalCv({1, 10, 10, 10}), 0);  // steady after the ramp
  EXPECT_NEAR(IntervalCv({1, 8, 12, 8, 12}), 2.3094 / 10, 1e-4);
  IntervalCounter c;
  c.Mark(0, 0);
  c.Mark(100, kIntervalNs / 2);  // within the first interval: nothing yet
  c.Mark(1000, kIntervalNs);
  c.Mark(3000, 2 * kIntervalNs);
  const std::vector<double> g = c.Gbps(125);  // 125 B units: 1000 units/100ms = 10 Mb/s
  ASSERT_EQ(g.size(), 2u);
  EXPECT_NEAR(g[0], 0.01, 1e-9);
  EXPECT_NEAR(g[1], 0.02, 1e-9);
}

}  // namespace
}  // namespace nodeprobe::transfer
