// Counter deltas on a real capture (hwloc's 32em64t, mlx4_0 port 1) and an
// "after" copy where the port took symbol errors and sent CNPs.
#include "probes/transfer/counter_deltas.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

class CounterDeltasTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::HwlocXeonHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    port_ = host_->sys_root + "/class/infiniband/mlx4_0/ports/1";
  }
  PortCounters Snap() {
    auto s = SnapshotPortCounters(platform::FileTree(host_->sys_root), "mlx4_0", 1);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? *s : PortCounters();
  }
  std::unique_ptr<testing::CapturedHost> host_;
  std::string port_;
};

TEST_F(CounterDeltasTest, GrownErrorsFailAndCongestionIsEvidenceWithItsRate) {
  // The capture has no hw_counters; mlx5-class ports do: give it one.
  testing::WriteFile(port_ + "/hw_counters/np_cnp_sent", "1000\n");
  PortCounters before = Snap();
  ASSERT_TRUE(before.values.count("symbol_error"));
  const uint64_t symbols = before.values.at("symbol_error");
  testing::WriteFile(port_ + "/counters/symbol_error", std::to_string(symbols + 7) + "\n");
  testing::WriteFile(port_ + "/hw_counters/np_cnp_sent", "1500\n");
  PortCounters after = Snap();
  v1::ProbeResult r;
  JudgeCounterDeltas(before, after, 2.0, Profile(), &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "RDMA_ERROR_COUNTERS_GREW");
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_EQ(r.findings(0).device(), "mlx4_0:1");
  EXPECT_NE(r.findings(0).message().find("symbol_error +7"), std::string::npos);
  EXPECT_EQ(r.evidence().at("mlx4_0:1 np_cnp_sent during the transfer"),
            "+500 (250.0/s over 2.00 s)");
  // With a profile threshold below 250/s, the CNPs warn too.
  Profile p;
  p.transfer.congestion_max_per_second = 100;
  v1::ProbeResult warned;
  JudgeCounterDeltas(before, after, 2.0, p, &warned);
  ASSERT_EQ(warned.findings_size(), 2);
  EXPECT_EQ(warned.findings(1).code(), "RDMA_CONGESTION_SIGNALS");
  EXPECT_EQ(warned.findings(1).severity(), v1::WARN);
}

TEST_F(CounterDeltasTest, QuietPortsAndAbsentCountersAddNothing) {
  PortCounters before = Snap();
  PortCounters after = Snap();
  v1::ProbeResult r;
  JudgeCounterDeltas(before, after, 1.0, Profile(), &r);
  EXPECT_EQ(r.findings_size(), 0);
  for (const auto& m : r.measurements()) {
    EXPECT_NE(m.labels().at("counter"), "np_cnp_sent") << "absent counters are not zero";
    EXPECT_EQ(m.value(), 0);
  }
  // A counter that went backwards (reset) is not a delta.
  after.values["symbol_error"] = 0;
  before.values["symbol_error"] = 5;
  v1::ProbeResult reset;
  JudgeCounterDeltas(before, after, 1.0, Profile(), &reset);
  EXPECT_EQ(reset.findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::transfer
