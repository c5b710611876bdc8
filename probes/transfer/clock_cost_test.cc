// The cost of a clock read: measured here (no bar asserted: a test must
// not depend on how busy its machine is), and judged from given costs.
#include "probes/transfer/clock_cost.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

TEST(ClockCostTest, ThisHostsClockIsMeasuredAndNamesItsSource) {
  testing::TempDir sys;
  testing::WriteFile(sys.path() + "/devices/system/clocksource/clocksource0/current_clocksource",
                     "kvm-clock\n");
  const ClockCost cost = MeasureClockCost(sys.path());
  EXPECT_GT(cost.ns_per_read, 0);
  EXPECT_EQ(cost.clocksource, "kvm-clock");
  v1::ProbeResult r;
  JudgeClockCost(ClockCost{25, cost.clocksource}, &r);
  EXPECT_EQ(r.findings_size(), 0);
  EXPECT_NE(r.evidence().begin()->second.find("25 ns per read; clocksource kvm-clock"),
            std::string::npos);
}

TEST(ClockCostTest, AClockThatIsASyscallWarnsAndNamesTheFix) {
  v1::ProbeResult r;
  JudgeClockCost(ClockCost{1400, "hpet"}, &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "CLOCK_READ_SLOW");
  EXPECT_EQ(r.findings(0).severity(), v1::WARN);
  EXPECT_NE(r.findings(0).message().find("1400 ns"), std::string::npos);
  EXPECT_NE(r.findings(0).message().find("hpet"), std::string::npos);
}

// Measure and subtract: a 1000 ns read is 500 ns of each one-way figure.
TEST(ClockCostTest, TheReadsCostIsSubtractedFromEveryLatencyFigure) {
  v1::TransferReport report;
  v1::LatencyStats* l = report.add_results()->mutable_latency();
  l->set_min_us(0.3);
  l->set_median_us(2.0);
  l->set_avg_us(2.5);
  l->set_p99_us(4.0);
  l->set_p999_us(6.0);
  l->set_max_us(9.0);
  report.add_results()->set_bw_avg_gbps(10);  // a bandwidth row is left alone
  SubtractClockCost({1000, "hpet"}, &report);
  const v1::LatencyStats& s = report.results(0).latency();
  EXPECT_DOUBLE_EQ(s.min_us(), 0.0);  // never below zero
  EXPECT_DOUBLE_EQ(s.median_us(), 1.5);
  EXPECT_DOUBLE_EQ(s.avg_us(), 2.0);
  EXPECT_DOUBLE_EQ(s.p99_us(), 3.5);
  EXPECT_DOUBLE_EQ(s.p999_us(), 5.5);
  EXPECT_DOUBLE_EQ(s.max_us(), 8.5);
  EXPECT_FALSE(report.results(1).has_latency());
  v1::ProbeResult r;
  JudgeClockCost({1000, "hpet"}, &r);
  EXPECT_NE(r.evidence().at("clock read (CLOCK_MONOTONIC_RAW, once per round trip)")
                .find("subtracted from every latency figure (500.0 ns one-way)"),
            std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::transfer
