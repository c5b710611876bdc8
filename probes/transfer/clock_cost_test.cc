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

}  // namespace
}  // namespace nodeprobe::transfer
