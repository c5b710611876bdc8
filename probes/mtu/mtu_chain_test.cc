// Interface-chain judging on link tables shaped like the kernel's (what
// ReadLinks returns); the same chains are built for real in the lab tests.
#include "probes/mtu/mtu_chain.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::mtu {
namespace {

using platform::NetLink;

NetLink L(int index, const std::string& name, int mtu, const std::string& kind = "",
          int link = 0, int master = 0) {
  NetLink l;
  l.ifindex = index;
  l.name = name;
  l.mtu = mtu;
  l.kind = kind;
  l.link_ifindex = link;
  l.master_ifindex = master;
  l.up = true;
  return l;
}

std::vector<std::string> Judge(const std::vector<NetLink>& links, const std::string& iface,
                               std::optional<int> expected = std::nullopt,
                               std::optional<int> roce = std::nullopt) {
  testing::TempDir dir;
  v1::ProbeResult r;
  JudgeChain(BuildChain(links, iface, platform::FileTree(dir.path())), expected, roce, &r);
  std::vector<std::string> codes;
  for (const auto& f : r.findings()) codes.push_back(f.code());
  return codes;
}

TEST(MtuChainTest, VlanLargerThanParentIsMismatch) {
  std::vector<NetLink> links = {L(2, "eth0", 1500), L(3, "eth0.100", 9000, "vlan", 2)};
  EXPECT_EQ(Judge(links, "eth0.100"), std::vector<std::string>{"MTU_CHAIN_MISMATCH"});
  links[0].mtu = 9000;
  EXPECT_TRUE(Judge(links, "eth0.100").empty());
}

TEST(MtuChainTest, VethEndsThatDifferAreMismatch) {
  std::vector<NetLink> links = {L(4, "veth0", 9000, "veth", 5), L(5, "veth1", 1500, "veth", 4)};
  EXPECT_EQ(Judge(links, "veth0"), std::vector<std::string>{"MTU_CHAIN_MISMATCH"});
}

TEST(MtuChainTest, BridgeWithSmallerMemberIsMismatch) {
  std::vector<NetLink> links = {L(6, "br0", 9000, "bridge"), L(7, "eth1", 9000, "", 0, 6),
                                L(8, "eth2", 1500, "", 0, 6)};
  std::vector<std::string> codes = Judge(links, "br0");
  ASSERT_FALSE(codes.empty());
  EXPECT_EQ(codes[0], "MTU_CHAIN_MISMATCH");
}

TEST(MtuChainTest, BondMembersThatDifferAreMismatchSeenFromAMember) {
  std::vector<NetLink> links = {L(9, "bond0", 1500, "bond"), L(10, "eth3", 1500, "", 0, 9),
                                L(11, "eth4", 9000, "", 0, 9)};
  std::vector<std::string> codes = Judge(links, "eth3");
  ASSERT_FALSE(codes.empty());
  EXPECT_EQ(codes[0], "MTU_CHAIN_MISMATCH");
}

TEST(MtuChainTest, BelowExpectedAndRoceHeadroom) {
  std::vector<NetLink> links = {L(2, "eth0", 1500)};
  EXPECT_EQ(Judge(links, "eth0", 9000), std::vector<std::string>{"MTU_BELOW_EXPECTED"});
  // RoCE MTU 4096 + 60 header bytes needs a netdev MTU of at least 4156.
  EXPECT_EQ(Judge(links, "eth0", std::nullopt, 4096),
            std::vector<std::string>{"ROCE_MTU_EXCEEDS_NETDEV"});
  links[0].mtu = 4200;
  EXPECT_TRUE(Judge(links, "eth0", std::nullopt, 4096).empty());
}

TEST(MtuChainTest, MissingInterfaceIsErrorNotPass) {
  EXPECT_EQ(Judge({}, "eth9"), std::vector<std::string>{"MTU_INTERFACE_MISSING"});
}

TEST(MtuChainTest, VfLargerThanItsPfFromSysfs) {
  // node_exporter's captured /sys, with eth0 turned into an SR-IOV VF whose
  // PF (enp1s0, MTU 1500) is only visible through device/physfn.
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string pf_dir = (*host)->sys_root + "/devices/pf0";
  testing::WriteFile(pf_dir + "/net/enp1s0/mtu", "1500\n");
  testing::WriteFile((*host)->sys_root + "/class/net/eth0/device/.keep", "");
  // Relative, as sysfs makes its links (an absolute one would point inside
  // the capture's root, as it would on the captured machine).
  const std::string device_dir =
      std::filesystem::canonical((*host)->sys_root + "/class/net/eth0/device").string();
  const std::string target = std::filesystem::relative(pf_dir, device_dir).string();
  ASSERT_EQ(symlink(target.c_str(), (device_dir + "/physfn").c_str()), 0);
  std::vector<NetLink> links = {L(2, "eth0", 9000)};
  v1::InterfaceChain chain = BuildChain(links, "eth0", platform::FileTree((*host)->sys_root));
  ASSERT_EQ(chain.elements_size(), 2);
  EXPECT_EQ(chain.elements(1).role(), "physical function");
  EXPECT_EQ(chain.elements(1).mtu(), 1500);
  v1::ProbeResult r;
  JudgeChain(chain, std::nullopt, std::nullopt, &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "MTU_CHAIN_MISMATCH");
}

}  // namespace
}  // namespace nodeprobe::mtu
