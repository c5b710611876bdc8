// The expectation math, with the figures worked by hand beside each check.
#include "probes/transfer/expectations.h"

#include "gtest/gtest.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "probes/transfer/transfer_profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

TEST(ExpectationMathTest, GoodputFractionsPerProtocol) {
  // TCP/IPv4 with timestamps: 1448 payload bytes per 1538 on the wire.
  EXPECT_NEAR(TcpGoodputFraction(1500), 1448.0 / 1538.0, 1e-12);
  EXPECT_NEAR(TcpGoodputFraction(9000), 8948.0 / 9038.0, 1e-12);
  // RoCE v2: 82 bytes per packet (Eth 14, IP 20, UDP 8, BTH 12, ICRC 4,
  // FCS 4, preamble 8, gap 12).
  EXPECT_NEAR(RoceGoodputFraction(4096), 4096.0 / 4178.0, 1e-12);
  EXPECT_NEAR(RoceGoodputFraction(1024), 1024.0 / 1106.0, 1e-12);
  // InfiniBand: LRH 8, BTH 12, ICRC 4, VCRC 2.
  EXPECT_NEAR(IbGoodputFraction(4096), 4096.0 / 4122.0, 1e-12);
  // PCIe Gen4 x16: 16 GT/s x 16 x 128/130 = 252.06 Gb/s, x 256/280 TLP.
  EXPECT_NEAR(PcieGoodputGbps(16, 16), 16 * 16 * 128.0 / 130 * 256 / 280, 1e-9);
  // Gen3 x4: 8 x 4 x 128/130 x 256/280 = 28.807 Gb/s.
  EXPECT_NEAR(PcieGoodputGbps(8, 4), 28.807, 1e-3);
}

TEST(ExpectationMathTest, PortRatesAsTheKernelPrintsThem) {
  // drivers/infiniband/core/sysfs.c rate_show(): width x lane speed.
  const std::vector<std::pair<const char*, double>> rates = {
      {"2.5 Gb/sec (1X SDR)", 2.5},  {"5 Gb/sec (1X DDR)", 5},     {"10 Gb/sec (1X QDR)", 10},
      {"14 Gb/sec (1X FDR)", 14},    {"25 Gb/sec (1X EDR)", 25},   {"50 Gb/sec (1X HDR)", 50},
      {"100 Gb/sec (1X NDR)", 100},  {"200 Gb/sec (1X XDR)", 200}, {"20 Gb/sec (2X DDR)", 20},
      {"40 Gb/sec (4X QDR)", 40},    {"56 Gb/sec (4X FDR)", 56},   {"100 Gb/sec (4X EDR)", 100},
      {"200 Gb/sec (4X HDR)", 200},  {"400 Gb/sec (4X NDR)", 400}, {"800 Gb/sec (8X NDR)", 800},
      {"800 Gb/sec (4X XDR)", 800},  {"120 Gb/sec (12X QDR)", 120},
      {"600 Gb/sec (12X HDR)", 600}, {"10 Gb/sec (4X)", 10}};
  for (const auto& [text, gbps] : rates) {
    absl::StatusOr<double> r = rdma::ParseRateGbps(text);
    ASSERT_TRUE(r.ok()) << text;
    EXPECT_DOUBLE_EQ(*r, gbps) << text;
  }
}

class LinkFactsTest : public ::testing::Test {
 protected:
  void Nic(const std::string& name, const char* speed, const char* pcie_speed, int width) {
    const std::string dev = sys_ + "/devices/pci0000:00/0000:00:01.0/0000:01:00.0";
    testing::WriteFile(dev + "/current_link_speed", std::string(pcie_speed) + "\n");
    testing::WriteFile(dev + "/current_link_width", std::to_string(width) + "\n");
    testing::WriteFile(sys_ + "/class/net/" + name + "/speed", std::string(speed) + "\n");
    testing::WriteFile(sys_ + "/class/net/" + name + "/mtu", "9000\n");
    // Relative, as sysfs links are.
    ASSERT_EQ(symlink("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0",
                      (sys_ + "/class/net/" + name + "/device").c_str()),
              0);
  }
  testing::TempDir dir_;
  std::string sys_ = dir_.path() + "/sys";
};

TEST_F(LinkFactsTest, APhysicalNicIsBarredByTheLowerOfPortAndPcie) {
  Nic("eth0", "100000", "16.0 GT/s PCIe", 16);
  LinkFacts f = TcpLinkFacts(sys_, "eth0");
  EXPECT_DOUBLE_EQ(f.line_gbps, 100);
  EXPECT_EQ(f.mtu, 9000);
  EXPECT_NEAR(f.pcie_gbps, 230.45, 0.01);
  v1::ProbeResult r;
  r.mutable_transfer()->set_transport(v1::TCP);
  r.mutable_transfer()->set_op(v1::STREAM_BW);
  r.mutable_transfer()->add_results()->set_bw_avg_gbps(70);
  r.mutable_transfer()->mutable_results(0)->set_size(65536);
  JudgeAgainstExpectation(Profile(), f, &r);
  // 100 Gb/s x 8948/9038 x 0.90 = 89.107 Gb/s.
  EXPECT_NEAR(r.transfer().expected(), 100 * 8948.0 / 9038.0 * 0.9, 1e-9);
  EXPECT_EQ(r.transfer().expected_source(), "hardware");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_BELOW_EXPECTED");
}

TEST_F(LinkFactsTest, ANicInANarrowSlotIsBarredByItsPcieLink) {
  Nic("eth0", "100000", "8.0 GT/s PCIe", 4);
  LinkFacts f = TcpLinkFacts(sys_, "eth0");
  v1::ProbeResult r;
  r.mutable_transfer()->set_transport(v1::TCP);
  r.mutable_transfer()->set_op(v1::STREAM_BW);
  JudgeAgainstExpectation(Profile(), f, &r);
  EXPECT_NEAR(r.transfer().expected(), 28.807 * 8948.0 / 9038.0 * 0.9, 1e-2);
  EXPECT_NE(r.transfer().expected_basis().find("PCIe link"), std::string::npos)
      << r.transfer().expected_basis();
}

TEST_F(LinkFactsTest, AVirtualInterfaceHasNoAbsoluteBarAndSaysSo) {
  testing::WriteFile(sys_ + "/class/net/veth0/speed", "10000\n");  // veth's nominal speed
  LinkFacts f = TcpLinkFacts(sys_, "veth0");
  EXPECT_EQ(f.line_gbps, 0);
  v1::ProbeResult r;
  r.mutable_transfer()->set_transport(v1::TCP);
  r.mutable_transfer()->set_op(v1::STREAM_BW);
  r.mutable_transfer()->add_results()->set_bw_avg_gbps(0.1);
  JudgeAgainstExpectation(Profile(), f, &r);
  EXPECT_EQ(r.transfer().expected_source(), "none");
  EXPECT_NE(r.transfer().expected_basis().find("virtual interface"), std::string::npos);
  EXPECT_EQ(r.findings_size(), 0);
}

TEST_F(LinkFactsTest, TheProfileWinsAndLatencyHasABarOnlyFromIt) {
  Profile p;
  p.MutableSection<TransferBars>().rdma_write_lat_max_us = 5;
  v1::ProbeResult r;
  r.mutable_transfer()->set_transport(v1::RDMA);
  r.mutable_transfer()->set_op(v1::WRITE_LAT);
  r.mutable_transfer()->set_device("mlx5_0:1");
  r.mutable_transfer()->add_results()->mutable_latency()->set_median_us(7.5);
  JudgeAgainstExpectation(p, LinkFacts(), &r);
  EXPECT_EQ(r.transfer().expected_source(), "profile");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "LATENCY_ABOVE_EXPECTED");
  EXPECT_EQ(r.findings(0).device(), "mlx5_0:1");
}

TEST(RdmaLinkFactsTest, ARoceCapturePortIsBarredByItsRate) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  LinkFacts f = RdmaLinkFacts((*host)->sys_root, "mlx4_0", 1, 4096);
  EXPECT_DOUBLE_EQ(f.line_gbps, 56 * 64.0 / 66.0);  // "56 Gb/sec (4X FDR)": 64b/66b
  EXPECT_EQ(f.link_layer, "InfiniBand");
  v1::ProbeResult r;
  r.mutable_transfer()->set_transport(v1::RDMA);
  r.mutable_transfer()->set_op(v1::WRITE_BW);
  JudgeAgainstExpectation(Profile(), f, &r);
  EXPECT_NEAR(r.transfer().expected(), 56 * 64.0 / 66.0 * 4096.0 / 4122.0 * 0.9, 1e-9);
}

}  // namespace
}  // namespace nodeprobe::transfer

namespace nodeprobe::transfer {
namespace {

TEST(IbRateTest, SignallingRatesBecomeDataRates) {
  EXPECT_DOUBLE_EQ(IbDataFraction("40 Gb/sec (4X QDR)"), 0.8);
  EXPECT_DOUBLE_EQ(IbDataFraction("10 Gb/sec (4X SDR)"), 0.8);
  EXPECT_DOUBLE_EQ(IbDataFraction("56 Gb/sec (4X FDR)"), 64.0 / 66.0);
  EXPECT_DOUBLE_EQ(IbDataFraction("40 Gb/sec (4X FDR10)"), 1.0);
  EXPECT_DOUBLE_EQ(IbDataFraction("100 Gb/sec (4X EDR)"), 1.0);
  EXPECT_DOUBLE_EQ(IbDataFraction("400 Gb/sec (4X NDR)"), 1.0);
}

// A QDR port (node_exporter's capture): the bar is 32 Gb/s of data, so a
// healthy QDR transfer can pass; small messages are not held to it.
TEST(IbRateTest, AQdrPortIsJudgedOnItsDataRateAndSmallSizesAreNot) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const LinkFacts facts = RdmaLinkFacts((*host)->sys_root, "mlx4_0", 1, 4096);
  EXPECT_DOUBLE_EQ(facts.line_gbps, 32.0);
  EXPECT_NE(facts.encoding.find("x 0.8000"), std::string::npos) << facts.encoding;
  v1::ProbeResult r;
  v1::TransferReport* t = r.mutable_transfer();
  t->set_transport(v1::RDMA);
  t->set_op(v1::WRITE_BW);
  v1::TransferResult* small = t->add_results();
  small->set_size(2);
  small->set_bw_avg_gbps(0.01);
  v1::TransferResult* big = t->add_results();
  big->set_size(1 << 20);
  big->set_bw_avg_gbps(28.5);  // 89% of 32: below the 0.90 bar, but above QDR's 0.8 x 40
  JudgeAgainstExpectation(Profile(), facts, &r);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "TRANSFER_BELOW_EXPECTED");
  EXPECT_NE(r.findings(0).message().find("1048576-byte"), std::string::npos);
  big->set_bw_avg_gbps(31.0);
  v1::ProbeResult ok = r;
  ok.clear_findings();
  JudgeAgainstExpectation(Profile(), facts, &ok);
  EXPECT_EQ(ok.findings_size(), 0) << ok.DebugString();
}

}  // namespace
}  // namespace nodeprobe::transfer
