#include "probes/nccl_env/nccl_env.h"

#include "gtest/gtest.h"

namespace nodeprobe::nccl_env {
namespace {

std::vector<Device> TwoRocePorts() {
  Port p1{1, true, true, {{0, false, false}, {1, true, false}, {3, true, true}}, {}};
  Port p2{1, false, true, {{3, true, true}}, {}};
  return {{"mlx5_0", {p1}}, {"mlx5_1", {p2}}};
}
const std::vector<Link> kLinks = {{"lo", true}, {"eth0", true}, {"eth1", false}, {"net1", true}};

std::vector<std::string> Messages(const job::Env& env) {
  v1::ProbeResult r;
  Judge(env, TwoRocePorts(), kLinks, &r);
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) {
    EXPECT_EQ(f.code(), "NCCL_ENV_INVALID");
    out.push_back(f.message());
  }
  return out;
}

TEST(NcclEnvTest, ListsParseAsNcclsPrefixExactAndExcludeForms) {
  List l = ParseList("^=mlx5_0:1, mlx5_1");
  EXPECT_TRUE(l.exclude);
  EXPECT_TRUE(l.exact);
  ASSERT_EQ(l.entries.size(), 2u);
  EXPECT_EQ(l.entries[0].name, "mlx5_0");
  EXPECT_EQ(l.entries[0].port, 1);
  EXPECT_EQ(l.entries[1].port, -1);
  EXPECT_TRUE(Selects(ParseList("eth"), "eth0"));
  EXPECT_FALSE(Selects(ParseList("=eth"), "eth0"));
  EXPECT_TRUE(Selects(ParseList("=eth0"), "eth0"));
  EXPECT_FALSE(Selects(ParseList("^lo"), "lo"));
  EXPECT_TRUE(Selects(ParseList("^lo"), "eth0"));
  EXPECT_TRUE(Selects(ParseList("^docker,lo"), "net1"));
}

TEST(NcclEnvTest, SocketIfnameMustSelectAnUpInterface) {
  EXPECT_TRUE(Messages({{"NCCL_SOCKET_IFNAME", "eth"}}).empty());
  EXPECT_TRUE(Messages({{"NCCL_SOCKET_IFNAME", "=eth0"}}).empty());
  EXPECT_TRUE(Messages({{"NCCL_SOCKET_IFNAME", "^lo"}}).empty());
  std::vector<std::string> m = Messages({{"NCCL_SOCKET_IFNAME", "nosuch"}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], "NCCL_SOCKET_IFNAME=nosuch matches no up interface here (up: lo, eth0, net1)");
  EXPECT_EQ(Messages({{"NCCL_SOCKET_IFNAME", "=eth1"}}).size(), 1u) << "eth1 is down";
  EXPECT_EQ(Messages({{"NCCL_SOCKET_IFNAME", "^lo,eth,net"}}).size(), 1u);
}

TEST(NcclEnvTest, IbHcaMustNameADeviceHereWithAnActivePort) {
  EXPECT_TRUE(Messages({{"NCCL_IB_HCA", "mlx5_0"}}).empty());
  EXPECT_TRUE(Messages({{"NCCL_IB_HCA", "mlx5"}}).empty()) << "a prefix, and mlx5_0 is active";
  EXPECT_TRUE(Messages({{"NCCL_IB_HCA", "^mlx5_1"}}).empty());
  std::vector<std::string> m = Messages({{"NCCL_IB_HCA", "mlx5_9"}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0],
            "NCCL_IB_HCA=mlx5_9 names mlx5_9, which matches no RDMA device here (here: mlx5_0, "
            "mlx5_1)");
  EXPECT_NE(Messages({{"NCCL_IB_HCA", "=mlx5_1:1"}})[0].find("no ACTIVE port"), std::string::npos);
  EXPECT_EQ(Messages({{"NCCL_IB_HCA", "^mlx5"}}).size(), 1u);
  EXPECT_TRUE(Messages({{"NCCL_IB_HCA", "mlx5_9"}, {"NCCL_IB_DISABLE", "1"}}).empty());
}

TEST(NcclEnvTest, GidIndexMustBeARoceV2Ipv4GidOnTheSelectedPorts) {
  EXPECT_TRUE(Messages({{"NCCL_IB_GID_INDEX", "3"}}).empty());
  std::vector<std::string> m = Messages({{"NCCL_IB_GID_INDEX", "1"}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("not a RoCE v2 GID with an IPv4 address on mlx5_0:1 (those here: 3)"),
            std::string::npos)
      << m[0];
  EXPECT_EQ(Messages({{"NCCL_IB_GID_INDEX", "x"}}).size(), 1u);
}

TEST(NcclEnvTest, TopoFileAndLevelsAreChecked) {
  EXPECT_EQ(Messages({{"NCCL_TOPO_FILE", "/nonexistent/topo.xml"}}).size(), 1u);
  EXPECT_TRUE(Messages({{"NCCL_P2P_LEVEL", "NVL"}, {"NCCL_NET_GDR_LEVEL", "2"}}).empty());
  EXPECT_EQ(Messages({{"NCCL_NET_GDR_LEVEL", "PCI"}}).size(), 1u);
}

}  // namespace
}  // namespace nodeprobe::nccl_env
