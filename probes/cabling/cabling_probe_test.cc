// The cabling record and the rail plan, on neighbour tables as lldpd gives
// them (the lab test reads a real lldpd).
#include "probes/cabling/cabling_probe.h"

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

platform::LldpNeighbor Heard(const std::string& iface, const std::string& sw,
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

}  // namespace
}  // namespace nodeprobe
