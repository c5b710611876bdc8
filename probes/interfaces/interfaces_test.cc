// The secondary-interface rules on hwloc's captured Xeon (eth0 up, eth1
// administratively down, ib0 = IPoIB on mlx4_0 with MTU 2044), and on
// variants derived from it where a test says so.
#include "probes/interfaces/interfaces.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::interfaces {
namespace {

class InterfacesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> members = testing::kHwlocRdmaMembers;
    members.push_back("*/sys/devices/pci0000:00/0000:00:01.1/0000:02:00.0");
    members.push_back("*/sys/devices/pci0000:00/0000:00:01.1/0000:02:00.3");
    auto host = testing::HwlocXeonHost(members);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = std::move(*host);
  }
  std::string Net(const std::string& rel) { return host_->sys_root + "/class/net/" + rel; }
  v1::ProbeResult Judged(const Rules& rules) {
    v1::ProbeResult r;
    Judge(ReadInterfaces(platform::FileTree(host_->sys_root)), "eth0", rules, &r);
    return r;
  }
  std::vector<std::string> Codes(const v1::ProbeResult& r) {
    std::vector<std::string> out;
    for (const v1::Finding& f : r.findings()) out.push_back(f.code() + " " + f.device());
    return out;
  }
  std::unique_ptr<testing::CapturedHost> host_;
};

TEST_F(InterfacesTest, TheCaptureReadsAsItWas) {
  std::vector<Interface> all = ReadInterfaces(platform::FileTree(host_->sys_root));
  ASSERT_EQ(all.size(), 3u);  // br0, eth0.1015, mic0 are not in the capture; lo is left out
  EXPECT_EQ(all[0].name, "eth0");
  EXPECT_TRUE(all[0].admin_up);
  EXPECT_EQ(all[1].name, "eth1");
  EXPECT_FALSE(all[1].admin_up);  // flags 0x1002
  EXPECT_EQ(all[1].operstate, "down");
  EXPECT_EQ(all[2].name, "ib0");
  EXPECT_EQ(all[2].mtu, 2044);
  EXPECT_EQ(all[2].rdma, std::vector<std::string>{"mlx4_0"});
  EXPECT_FALSE(all[2].vf);
}

TEST_F(InterfacesTest, AHealthyNodePassesAndASparePortDownIsEvidenceOnly) {
  v1::ProbeResult r = Judged({});
  EXPECT_EQ(r.findings_size(), 0) << r.DebugString();
  EXPECT_EQ(r.evidence().at("iface.eth1"),
            "administratively down, mtu 1500, no RDMA device, not judged (no RDMA, not a VF or "
            "CNI link)");
  EXPECT_EQ(r.evidence().at("iface.ib0"), "up, operstate up, mtu 2044, RDMA mlx4_0");
  EXPECT_NE(r.evidence().at("iface.eth0").find("primary"), std::string::npos);
}

TEST_F(InterfacesTest, AnMtuBelowTheProfileFailsOnlyForInterfacesInUse) {
  Rules rules;
  rules.mtu = 4092;
  v1::ProbeResult r = Judged(rules);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"SECONDARY_INTERFACE_MTU ib0"});
  EXPECT_NE(r.findings(0).message().find("ib0 has MTU 2044, below the profile's 4092"),
            std::string::npos);
}

TEST_F(InterfacesTest, UpWithoutCarrierOrDownWithRdmaFails) {
  testing::WriteFile(Net("ib0/operstate"), "lowerlayerdown\n");
  EXPECT_EQ(Codes(Judged({})), std::vector<std::string>{"SECONDARY_INTERFACE_DOWN ib0"});
  testing::WriteFile(Net("ib0/flags"), "0x1002\n");
  v1::ProbeResult r = Judged({});
  ASSERT_EQ(Codes(r), std::vector<std::string>{"SECONDARY_INTERFACE_DOWN ib0"});
  EXPECT_NE(r.findings(0).message().find("administratively down with RDMA device mlx4_0"),
            std::string::npos);
}

TEST_F(InterfacesTest, AVfAboveItsPfsMtuFails) {
  // A variant: ib0's function made a VF whose PF netdev (ib_pf) has MTU 1500.
  testing::WriteFile(Net("ib0/device/physfn/net/ib_pf/mtu"), "1500\n");
  v1::ProbeResult r = Judged({});
  ASSERT_EQ(Codes(r), std::vector<std::string>{"SECONDARY_INTERFACE_MTU ib0"});
  EXPECT_NE(r.findings(0).message().find("its PF ib_pf has 1500"), std::string::npos);
  EXPECT_NE(r.evidence().at("iface.ib0").find("SR-IOV VF of ib_pf (mtu 1500)"), std::string::npos);
}

TEST_F(InterfacesTest, AHostsPlainPortWithoutCarrierIsNotJudged) {
  // A variant: eth1 set up with no cable (a host's spare port), and a bridge
  // without ports (docker0-like) would read the same.
  testing::WriteFile(Net("eth1/flags"), "0x1003\n");
  EXPECT_TRUE(Codes(Judged({})).empty());
}

TEST_F(InterfacesTest, RdmaExpectedWithoutAnRdmaBackedSecondaryWarns) {
  // A variant: the pod's net1 is a macvlan, no RDMA device behind it.
  testing::RemoveTree(Net("ib0/device/infiniband"));
  std::vector<Interface> all = ReadInterfaces(platform::FileTree(host_->sys_root));
  ASSERT_EQ(all.back().name, "ib0");
  all.back().kind = "macvlan";
  Rules rules;
  rules.rdma_expected = true;
  rules.rdma_why = "NCCL_IB_HCA=mlx5";
  v1::ProbeResult r;
  Judge(all, "eth0", rules, &r);
  ASSERT_EQ(Codes(r), std::vector<std::string>{"SECONDARY_INTERFACE_NOT_RDMA "});
  EXPECT_NE(r.findings(0).message().find("(ib0)"), std::string::npos) << r.findings(0).message();
}

TEST(DefaultRouteTest, TheZeroDestinationAndMaskNameThePrimary) {
  const std::string table =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
      "net1\t0000A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
      "eth0\t00000000\t0101A8C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n";
  EXPECT_EQ(DefaultRouteInterface(table), "eth0");
  EXPECT_EQ(DefaultRouteInterface(table.substr(0, table.find("eth0"))), "");
  EXPECT_EQ(DefaultRouteInterface(""), "");
}

}  // namespace
}  // namespace nodeprobe::interfaces
