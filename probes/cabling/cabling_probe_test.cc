// The cabling record and the rail plan, on neighbour tables as lldpd gives
// them (the lab test reads a real lldpd).
#include "probes/cabling/cabling_probe.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

platform::CableNeighbor Heard(const std::string& iface, const std::string& sw,
                             const std::string& port) {
  return {iface, sw, "ifname " + port, port, "mac 0c:42:a1:00:00:01"};
}

const std::map<std::string, std::string> kRdma = {{"ens1f0np0", "mlx5_0:1"},
                                                  {"ens2f0np0", "mlx5_1:1"}};

TEST(CablingTest, CabledAsPlannedIsRecordedWithTheRdmaPort) {
  const v1::ProbeResult r =
      JudgeCabling({Heard("ens1f0np0", "leaf-rail-0-a", "Ethernet1/7"),
                    Heard("ens2f0np0", "leaf-rail-1-a", "Ethernet1/7")},
                   {{"ens1f0np0", "leaf-rail-0-*"}, {"ens2f0np0", "leaf-rail-1-*"}}, kRdma, "p.yaml");
  EXPECT_EQ(r.findings_size(), 0);
  ASSERT_EQ(r.cabling().links_size(), 2);
  EXPECT_EQ(r.cabling().links(0).rdma_device(), "mlx5_0:1");
  EXPECT_EQ(r.cabling().links(0).neighbor_system(), "leaf-rail-0-a");
  EXPECT_EQ(r.cabling().links(0).expected(), "leaf-rail-0-*");
  EXPECT_EQ(r.evidence().at("cabling.ens2f0np0"), "leaf-rail-1-a port Ethernet1/7");
}

TEST(CablingTest, SwappedRailsAreTwoMismatchesNamingBothEnds) {
  const v1::ProbeResult r =
      JudgeCabling({Heard("ens1f0np0", "leaf-rail-1-a", "Ethernet1/7"),
                    Heard("ens2f0np0", "leaf-rail-0-a", "Ethernet1/7")},
                   {{"ens1f0np0", "leaf-rail-0-*"}, {"ens2f0np0", "leaf-rail-1-*"}}, kRdma, "p.yaml");
  ASSERT_EQ(r.findings_size(), 2);
  EXPECT_EQ(r.findings(0).code(), "CABLING_RAIL_MISMATCH");
  EXPECT_EQ(r.findings(0).severity(), v1::FAIL);
  EXPECT_EQ(r.findings(0).device(), "ens1f0np0");
  EXPECT_EQ(r.findings(0).message(),
            "ens1f0np0 (mlx5_0:1) is cabled to leaf-rail-1-a port Ethernet1/7; the rail plan "
            "(p.yaml) expects a switch matching \"leaf-rail-0-*\"");
}

TEST(CablingTest, APlannedInterfaceWithoutNeighbourIsWarn) {
  const v1::ProbeResult r = JudgeCabling({Heard("ens1f0np0", "leaf-rail-0-a", "Ethernet1/7")},
                                         {{"ens1f0np0", "leaf-rail-0-*"},
                                          {"ens2f0np0", "leaf-rail-1-*"}},
                                         kRdma, "p.yaml");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "CABLING_NO_NEIGHBOR");
  EXPECT_EQ(r.findings(0).severity(), v1::WARN);
  EXPECT_EQ(r.findings(0).device(), "ens2f0np0");
}

TEST(CablingTest, NothingHeardAndNoPlanIsSkip) {
  const v1::ProbeResult r = JudgeCabling({}, {}, kRdma, "");
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_EQ(r.reason(), "lldpd heard no LLDP neighbour on any interface");
}

TEST(CablingTest, InfiniBandSwitchNamesComeOutOfTheNodeDescription) {
  EXPECT_EQ(IbSwitchName("MF0;leaf-rail-0-a:MQM9700/U1"), "leaf-rail-0-a");
  EXPECT_EQ(IbSwitchName("leaf-rail-0-a"), "leaf-rail-0-a");
  EXPECT_EQ(IbSwitchName("MF0;no-model"), "MF0;no-model");
  EXPECT_EQ(IbSwitchName(""), "");
}

TEST(CablingTest, AnInfiniBandPortOnTheWrongLeafIsAMismatchNamingThePort) {
  platform::CableNeighbor ib{"mlx5_0:1", "leaf-rail-1-a", "17", "MF0;leaf-rail-1-a:MQM9700/U1",
                             "guid 0xb8cef603000e2a40", "ib-smp"};
  const v1::ProbeResult r = JudgeCabling({ib}, {{"mlx5_0:1", "leaf-rail-0-*"}}, kRdma, "p.yaml");
  ASSERT_EQ(r.cabling().links_size(), 1);
  EXPECT_EQ(r.cabling().links(0).source(), "ib-smp");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "CABLING_RAIL_MISMATCH");
  EXPECT_EQ(r.findings(0).device(), "mlx5_0:1");
}

TEST(CablingTest, APlannedInfiniBandPortThatNoSwitchAnsweredSaysSo) {
  const v1::ProbeResult r = JudgeCabling({}, {{"mlx5_0:1", "leaf-rail-0-*"}}, kRdma, "p.yaml");
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "CABLING_NO_NEIGHBOR");
  EXPECT_NE(r.findings(0).message().find("no switch answered one hop out"), std::string::npos);
}

rdma::PortNetdevs Port(uint32_t port, const std::string& link_layer, bool active) {
  rdma::PortNetdevs p;
  p.device = "mlx5_77";
  p.port = port;
  p.link_layer = link_layer;
  p.active = active;
  return p;
}

TEST(CablingTest, OnlyActiveInfiniBandPortsAskTheFabricAndSilenceIsNoNeighbour) {
  // No HCA here: the one ACTIVE IB port's discovery fails (no umad device)
  // and leaves it out; RoCE and DOWN ports are not asked at all.
  const std::vector<rdma::PortNetdevs> d = {Port(1, "Ethernet", true), Port(2, "InfiniBand", false),
                                            Port(3, "InfiniBand", true)};
  EXPECT_TRUE(IbCableNeighbors(d).empty());
}

TEST(CablingTest, EachAnsweringIbPortBecomesALinkToItsSwitch) {
  std::vector<std::string> asked;
  auto discover = [&asked](const std::string& dev, int port)
      -> absl::StatusOr<std::vector<platform::IbNeighbor>> {
    asked.push_back(absl::StrCat(dev, ":", port));
    if (port != 3) return std::vector<platform::IbNeighbor>{};
    return std::vector<platform::IbNeighbor>{
        {3, "MF0;leaf-rail-3-a:MQM9700/U1", 0xb8cef603000e2a40ull, 17, true}};
  };
  const std::vector<rdma::PortNetdevs> d = {Port(1, "Ethernet", true), Port(2, "InfiniBand", false),
                                            Port(3, "InfiniBand", true)};
  const std::vector<platform::CableNeighbor> n = IbCableNeighbors(d, discover);
  EXPECT_EQ(asked, std::vector<std::string>{"mlx5_77:3"});
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].interface, "mlx5_77:3");
  EXPECT_EQ(n[0].system_name, "leaf-rail-3-a");
  EXPECT_EQ(n[0].port_id, "17");
  EXPECT_EQ(n[0].chassis_id, "guid 0xb8cef603000e2a40");
  EXPECT_EQ(n[0].source, "ib-smp");
}

}  // namespace
}  // namespace nodeprobe
