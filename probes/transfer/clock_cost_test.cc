// The cost of a clock read: measured here (the vDSO's, far under the bar
// on any sane host), and judged from a captured clocksource.
#include "probes/transfer/clock_cost.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

TEST(ClockCostTest, ThisHostsClockIsReadThroughTheVdsoAndNamesItsSource) {
  testing::TempDir sys;
  testing::WriteFile(sys.path() + "/devices/system/clocksource/clocksource0/current_clocksource",
                     "kvm-clock\n");
  const ClockCost cost = MeasureClockCost(sys.path());
  EXPECT_GT(cost.ns_per_read, 0);
  EXPECT_LT(cost.ns_per_read, kSlowClockReadNs) << "a syscall per read on this host?";
  EXPECT_EQ(cost.clocksource, "kvm-clock");
  v1::ProbeResult r;
  JudgeClockCost(cost, &r);
  EXPECT_EQ(r.findings_size(), 0);
  EXPECT_NE(r.evidence().begin()->second.find("clocksource kvm-clock"), std::string::npos);
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
