// Counter deltas on a real capture (hwloc's 32em64t, mlx4_0 port 1) and an
// "after" copy where the port took symbol errors and sent CNPs.
#include "probes/transfer/counter_deltas.h"

#include "gtest/gtest.h"
#include "platform/netdev_stats.h"
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
  // A profile for a fabric known to be marginal: grown errors warn.
  absl::StatusOr<Profile> marginal =
      ParseProfile("transfer:\n  error_counters_grew: warn\n", "marginal.yaml");
  ASSERT_TRUE(marginal.ok()) << marginal.status();
  v1::ProbeResult soft;
  JudgeCounterDeltas(before, after, 2.0, *marginal, &soft);
  ASSERT_EQ(soft.findings_size(), 1);
  EXPECT_EQ(soft.findings(0).severity(), v1::WARN);
  EXPECT_FALSE(ParseProfile("transfer:\n  error_counters_grew: ignore\n", "x.yaml").ok());
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

TEST(NetdevDeltasTest, ErrorsFailPausesWarnAboveTheRateAndDropsAreIgnored) {
  PortCounters before{"eth0", {{"rx_crc_errors", 10},
                               {"rx_errors", 10},
                               {"rx_dropped", 5},
                               {"ethtool:rx_prio3_pause", 0},
                               {"ethtool:rx_pause_duration", 0},
                               {"ethtool:tx_bytes_phy", 0}}};
  PortCounters after{"eth0", {{"rx_crc_errors", 13},
                              {"rx_errors", 13},
                              {"rx_dropped", 900},
                              {"ethtool:rx_prio3_pause", 2000},
                              {"ethtool:rx_pause_duration", 99999},
                              {"ethtool:tx_bytes_phy", 1 << 30}}};
  Profile p;
  p.transfer.congestion_max_per_second = 100;
  v1::ProbeResult r;
  JudgeNetdevDeltas(before, after, 2.0, p, &r);
  ASSERT_EQ(r.findings_size(), 2) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "NETDEV_ERRORS_GREW");
  EXPECT_NE(r.findings(0).message().find("rx_crc_errors +3"), std::string::npos);
  EXPECT_EQ(r.findings(0).message().find("rx_dropped"), std::string::npos);
  EXPECT_EQ(r.findings(1).code(), "NETDEV_PAUSE_FRAMES");
  EXPECT_NE(r.findings(1).message().find("rx_prio3_pause 1000/s"), std::string::npos)
      << r.findings(1).message();
  EXPECT_EQ(r.evidence().at("eth0 rx_prio3_pause during the transfer"),
            "+2000 (1000.0/s over 2.00 s)");
  // Counted counters only: no measurement for bytes or durations.
  for (const auto& m : r.measurements()) {
    EXPECT_NE(m.labels().at("counter"), "tx_bytes_phy");
    EXPECT_NE(m.labels().at("counter"), "rx_pause_duration");
  }
}

TEST(NetdevDeltasTest, TheDriversEthtoolCountersAreReadWithoutEthtool) {
  // lo has no driver statistics: empty, not an error; an unknown interface
  // is an error naming it.
  auto lo = platform::EthtoolStatistics("lo");
  ASSERT_TRUE(lo.ok()) << lo.status();
  EXPECT_TRUE(lo->empty());
  auto none = platform::EthtoolStatistics("nodev0");
  EXPECT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("nodev0"), std::string::npos);
  EXPECT_FALSE(platform::EthtoolStatistics("an-interface-name-too-long").ok());
  PortCounters lo_counters = SnapshotNetdevCounters(platform::FileTree("/sys"), "lo");
  EXPECT_TRUE(lo_counters.values.count("rx_errors")) << "statistics/ of lo";
}

}  // namespace
}  // namespace nodeprobe::transfer
