// Counter deltas on a real capture (hwloc's 32em64t, mlx4_0 port 1) and an
// "after" copy where the port took symbol errors and sent CNPs.
#include "probes/transfer/counter_deltas.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "platform/netdev_stats.h"
#include "probes/transfer/transfer_profile.h"
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
  p.MutableSection<TransferBars>().congestion_max_per_second = 100;
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

// Received RNR NAKs retried within the limit are SEND flow control (a
// receiver behind), congestion evidence, not an error.
TEST_F(CounterDeltasTest, RnrNakRetriesAreCongestionNotErrors) {
  testing::WriteFile(port_ + "/hw_counters/rnr_nak_retry_err", "10\n");
  PortCounters before = Snap();
  testing::WriteFile(port_ + "/hw_counters/rnr_nak_retry_err", "410\n");
  PortCounters after = Snap();
  v1::ProbeResult r;
  JudgeCounterDeltas(before, after, 2.0, Profile(), &r);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  EXPECT_EQ(r.evidence().at("mlx4_0:1 rnr_nak_retry_err during the transfer"),
            "+400 (200.0/s over 2.00 s)");
}

// A 16-bit (or 8-bit) PMA counter stuck at all ones hides growth: said,
// not judged as quiet.
TEST_F(CounterDeltasTest, ASaturatedPmaCounterIsNotJudged) {
  testing::WriteFile(port_ + "/counters/symbol_error", "65535\n");
  testing::WriteFile(port_ + "/counters/link_downed", "255\n");
  PortCounters before = Snap();
  PortCounters after = Snap();
  v1::ProbeResult r;
  JudgeCounterDeltas(before, after, 1.0, Profile(), &r);
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  for (const char* c : {"symbol_error", "link_downed"}) {
    auto it = r.evidence().find(absl::StrCat("mlx4_0:1 ", c, " during the transfer"));
    ASSERT_NE(it, r.evidence().end()) << c << "\n" << r.DebugString();
    EXPECT_NE(it->second.find("saturated: not judged"), std::string::npos) << it->second;
  }
  // One below the maximum is still judged.
  testing::WriteFile(port_ + "/counters/symbol_error", "65534\n");
  before = Snap();
  testing::WriteFile(port_ + "/counters/symbol_error", "65535\n");
  after = Snap();
  v1::ProbeResult grew;
  JudgeCounterDeltas(before, after, 1.0, Profile(), &grew);
  ASSERT_EQ(grew.findings_size(), 1) << grew.DebugString();
  EXPECT_EQ(grew.findings(0).code(), "RDMA_ERROR_COUNTERS_GREW");
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
  p.MutableSection<TransferBars>().congestion_max_per_second = 100;
  v1::TransferReport report;
  report.set_transport(v1::TCP);
  report.set_op(v1::STREAM_BW);
  v1::TransferResult* row = report.add_results();
  for (v1::CounterDelta& d : ClassifiedDeltas(before, after, 2.0, false, "client")) {
    *row->add_counters() = d;
  }
  v1::ProbeResult r;
  JudgeTransferCounters(report, false, p, &r);
  ASSERT_EQ(r.findings_size(), 2) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "NETDEV_ERRORS_GREW");
  EXPECT_NE(r.findings(0).message().find("rx_crc_errors +3"), std::string::npos);
  EXPECT_NE(r.findings(0).message().find("eth0 on the client (sender)"), std::string::npos)
      << r.findings(0).message();
  EXPECT_EQ(r.findings(0).message().find("rx_dropped"), std::string::npos);
  EXPECT_EQ(r.findings(1).code(), "NETDEV_PAUSE_FRAMES");
  EXPECT_NE(r.findings(1).message().find("rx_prio3_pause 1000/s"), std::string::npos)
      << r.findings(1).message();
  EXPECT_EQ(r.evidence().at("eth0 on the client (sender) rx_prio3_pause during the transfer"),
            "+2000 (1000.0/s over 2.00 s)");
  // Counted counters only: no measurement for bytes or durations.
  for (const auto& m : r.measurements()) {
    EXPECT_NE(m.labels().at("counter"), "tx_bytes_phy");
    EXPECT_NE(m.labels().at("counter"), "rx_pause_duration");
  }
}

// write_bw's data lands at the server: its ECN marks and out-of-sequence
// packets, sent back in its Done, are judged as the receiver's, per size
// and summed over sizes; the client's quiet port adds nothing.
TEST(TransferCountersTest, EachEndsDeltasAreJudgedAsItsSideSummedOverSizes) {
  v1::TransferReport report;
  report.set_transport(v1::RDMA);
  report.set_op(v1::WRITE_BW);
  PortCounters quiet{"mlx5_0:1", {{"port_rcv_errors", 0}, {"hw:np_cnp_sent", 0}}};
  for (uint64_t size : {65536u, 1048576u}) {
    v1::TransferResult* row = report.add_results();
    row->set_size(size);
    for (v1::CounterDelta& d : ClassifiedDeltas(quiet, quiet, 1.0, true, "client")) {
      *row->add_counters() = d;
    }
    PortCounters before{"mlx5_1:1", {{"hw:out_of_sequence", 100}, {"hw:np_ecn_marked_roce_packets", 0}}};
    PortCounters after{"mlx5_1:1", {{"hw:out_of_sequence", 102}, {"hw:np_ecn_marked_roce_packets", 500}}};
    v1::TransferDone done;
    for (v1::CounterDelta& d : ClassifiedDeltas(before, after, 1.0, true, "server")) {
      *done.add_counters() = d;
    }
    AddServerCounters(done, row);
  }
  Profile p;
  p.MutableSection<TransferBars>().congestion_max_per_second = 100;
  v1::ProbeResult r;
  JudgeTransferCounters(report, false, p, &r);
  ASSERT_EQ(r.findings_size(), 2) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "RDMA_ERROR_COUNTERS_GREW");
  EXPECT_NE(r.findings(0).message().find("mlx5_1:1 on the server (receiver)"), std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("out_of_sequence +4"), std::string::npos)
      << r.findings(0).message();
  EXPECT_EQ(r.findings(1).code(), "RDMA_CONGESTION_SIGNALS");
  EXPECT_NE(r.findings(1).message().find("np_ecn_marked_roce_packets 500/s"), std::string::npos)
      << r.findings(1).message();
  bool client_measured = false;
  for (const auto& m : r.measurements()) {
    client_measured |= m.name() == "counter_delta" && m.labels().at("side") == "client" &&
                       m.labels().at("counter") == "port_rcv_errors" && m.value() == 0;
  }
  EXPECT_TRUE(client_measured) << r.DebugString();
  // The same deltas on a read_bw: the data flows the other way.
  report.set_op(v1::READ_BW);
  v1::ProbeResult read;
  JudgeTransferCounters(report, false, p, &read);
  ASSERT_GE(read.findings_size(), 1);
  EXPECT_NE(read.findings(0).message().find("on the server (sender)"), std::string::npos);
}

// A server that answers without counters (an older nodeprobe) is said to
// have none; nothing is judged for it and nothing is invented.
TEST(TransferCountersTest, AServerWithoutCountersIsSaidNotZero) {
  v1::TransferResult row;
  AddServerCounters(v1::TransferDone(), &row);
  EXPECT_EQ(row.counters_size(), 0);
  ASSERT_EQ(row.counters_unread_size(), 1);
  EXPECT_NE(row.counters_unread(0).find("server:"), std::string::npos);
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

// A RoCE port's netdev counters ride with its RDMA counters: every name in
// ethq's `ethtool -S` of a ConnectX-4 (mlx5_core) as the baseline, then
// discards grew and the mlx5 pause-storm watchdog (the issue's
// tx_pause_storm_error_events; that capture predates it) fired.
TEST(RoceNetdevDeltasTest, AStormDuringTheTransferFailsAndDiscardsAreCongestion) {
  PortCounters before{"mlx5_0:1", {{"hw:np_cnp_sent", 0}}};
  const std::string text =
      testing::ReadFixture("roce-qos/ethq-mlx5_core-cx4-ethtool-S-ubuntu1804.txt");
  for (absl::string_view line : absl::StrSplit(text, '\n', absl::SkipEmpty())) {
    std::pair<std::string, std::string> kv = absl::StrSplit(line, ": ");
    uint64_t v = 0;
    if (absl::SimpleAtoi(kv.second, &v)) before.values["ethtool:" + kv.first] = v;
  }
  ASSERT_GT(before.values.size(), 300u);
  before.values["ethtool:tx_pause_storm_error_events"] = 0;
  PortCounters after = before;
  after.values["ethtool:rx_discards_phy"] += 500;
  after.values["ethtool:rx_out_of_buffer"] += 10;
  after.values["ethtool:tx_pause_storm_error_events"] += 1;
  after.values["ethtool:rx_bytes"] += 1 << 30;
  std::map<std::string, std::string> kinds;
  for (const v1::CounterDelta& d : ClassifiedDeltas(before, after, 2.0, true, "")) {
    if (d.delta() > 0) kinds[d.counter()] = d.kind();  // the rest stayed still
  }
  EXPECT_EQ(kinds, (std::map<std::string, std::string>{{"rx_discards_phy", "congestion"},
                                                       {"rx_out_of_buffer", "congestion"},
                                                       {"tx_pause_storm_error_events", "storm"}}));
  v1::ProbeResult r;
  JudgeCounterDeltas(before, after, 2.0, Profile(), &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "ROCE_PAUSE_STORM");
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_EQ(r.evidence().at("mlx5_0:1 rx_discards_phy during the transfer"),
            "+500 (250.0/s over 2.00 s)");
}

// A collective's ranks each read their node's ports: two ranks on gpu-a
// saw the same CNPs (the larger count stands, not their sum), gpu-b's port
// took symbol errors.
TEST(CollectiveCountersTest, EachNodesPortsAreJudgedOnceWithItsLargestGrowth) {
  v1::CollectiveReport report;
  auto add = [&](const std::string& node, const std::string& counter, uint64_t delta,
                 const std::string& kind) {
    v1::CollectiveRank* r = report.add_ranks();
    r->set_node(node);
    v1::CounterDelta* d = r->add_counters();
    d->set_side(node);
    d->set_port("mlx5_0:1");
    d->set_counter(counter);
    d->set_delta(delta);
    d->set_seconds(2.0);
    d->set_kind(kind);
  };
  add("gpu-a", "np_cnp_sent", 100, "congestion");
  add("gpu-a", "np_cnp_sent", 120, "congestion");
  add("gpu-b", "symbol_error", 2, "error");
  report.add_ranks()->add_counters_unread("gpu-c: no RDMA device");
  v1::ProbeResult r;
  JudgeCollectiveCounters(report, Profile(), &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "RDMA_ERROR_COUNTERS_GREW");
  EXPECT_NE(r.findings(0).message().find("mlx5_0:1 on gpu-b error counters grew during the "
                                         "collective: symbol_error +2"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_EQ(r.evidence().at("mlx5_0:1 on gpu-a np_cnp_sent during the collective"),
            "+120 (60.0/s over 2.00 s)");
}

}  // namespace
}  // namespace nodeprobe::transfer
