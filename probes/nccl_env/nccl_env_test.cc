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

std::vector<std::string> Messages(const job::Env& env,
                                  const std::string& code = "NCCL_ENV_INVALID") {
  v1::ProbeResult r;
  Judge(env, TwoRocePorts(), kLinks, &r);
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) {
    EXPECT_EQ(f.code(), code) << f.message();
    out.push_back(f.message());
  }
  return out;
}

v1::ProbeResult Judged(const job::Env& env) {
  v1::ProbeResult r;
  Judge(env, TwoRocePorts(), kLinks, &r);
  return r;
}

TEST(NcclEnvTest, ListsParseAsNcclsPrefixExactAndExcludeForms) {
  List l = ParseList("^=mlx5_0:1,mlx5_1");
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

// NCCL's parseStringList trims nothing: "mlx5_0, mlx5_1" is mlx5_0 and
// " mlx5_1" (no such device); "mlx5_0:1:1" is port 1; ",": no entries,
// which NCCL's matchIfList reads as every name.
TEST(NcclEnvTest, ListsAreReadByteForByteAsNcclReadsThem) {
  List spaced = ParseList("mlx5_0, mlx5_1");
  ASSERT_EQ(spaced.entries.size(), 2u);
  EXPECT_EQ(spaced.entries[1].name, " mlx5_1");
  std::vector<std::string> m = Messages({{"NCCL_IB_HCA", "mlx5_0, mlx5_1"}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("\" mlx5_1\" (NCCL does not trim spaces)"), std::string::npos) << m[0];
  EXPECT_EQ(Messages({{"NCCL_IB_HCA", " mlx5_1"}}).size(), 1u);
  List triple = ParseList("mlx5_0:1:1");
  ASSERT_EQ(triple.entries.size(), 1u);
  EXPECT_EQ(triple.entries[0].name, "mlx5_0");
  EXPECT_EQ(triple.entries[0].port, 1);
  EXPECT_TRUE(Messages({{"NCCL_IB_HCA", "mlx5_0:1:1"}}).empty());
  EXPECT_TRUE(ParseList(",").entries.empty());
  EXPECT_TRUE(Messages({{"NCCL_SOCKET_IFNAME", ","}}).empty());  // every interface
  EXPECT_EQ(Messages({{"NCCL_SOCKET_IFNAME", "^"}}).size(), 1u);   // none
  std::vector<std::string> trailing = Messages({{"NCCL_SOCKET_IFNAME", "eth0 "}});
  ASSERT_EQ(trailing.size(), 1u);
  EXPECT_NE(trailing[0].find("does not trim spaces"), std::string::npos) << trailing[0];
}

TEST(NcclEnvTest, OnlyLoopbackLeftWarns) {
  std::vector<std::string> m =
      Messages({{"NCCL_SOCKET_IFNAME", "lo"}}, "NCCL_SOCKET_LOOPBACK_ONLY");
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("leaves only loopback (lo)"), std::string::npos) << m[0];
  EXPECT_EQ(Judged({{"NCCL_SOCKET_IFNAME", "lo"}}).findings(0).severity(), v1::WARN);
}

// NCCL_PARAM's strtoll(base 0): 0x3 and 3abc are 3, 010 is 8, -1 is
// automatic; only what NCCL cannot use is a finding.
TEST(NcclEnvTest, GidIndexIsReadAsNcclReadsIt) {
  EXPECT_TRUE(Messages({{"NCCL_IB_GID_INDEX", "-1"}}).empty());
  EXPECT_TRUE(Messages({{"NCCL_IB_GID_INDEX", "0x3"}}).empty());
  EXPECT_TRUE(Messages({{"NCCL_IB_GID_INDEX", "3abc"}}).empty());
  EXPECT_EQ(Judged({{"NCCL_IB_GID_INDEX", "3abc"}}).evidence().at("NCCL_IB_GID_INDEX read as"),
            "3 (NCCL reads \"3abc\" with strtoll base 0)");
  std::vector<std::string> octal = Messages({{"NCCL_IB_GID_INDEX", "010"}});
  ASSERT_EQ(octal.size(), 1u);  // 8: no RoCE v2 IPv4 GID there
  EXPECT_NE(octal[0].find("not a RoCE v2 GID"), std::string::npos) << octal[0];
  EXPECT_EQ(Messages({{"NCCL_IB_GID_INDEX", "-2"}}).size(), 1u);
  EXPECT_EQ(Messages({{"NCCL_IB_GID_INDEX", "300"}}).size(), 1u);
}

// IB forced and disabled at once: NCCL fails at init.
TEST(NcclEnvTest, IbForcedAndDisabledIsInvalid) {
  std::vector<std::string> m = Messages({{"NCCL_NET", "IB"}, {"NCCL_IB_DISABLE", "1"}});
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].find("network IB not found"), std::string::npos) << m[0];
  EXPECT_TRUE(Messages({{"NCCL_NET", "IB"}}).empty());
}

TEST(NcclEnvTest, AnAbsurdBuffsizeIsInvalid) {
  EXPECT_TRUE(Messages({{"NCCL_BUFFSIZE", "8388608"}}).empty());
  EXPECT_EQ(Messages({{"NCCL_BUFFSIZE", "18446744073709551615"}}).size(), 1u);
  EXPECT_EQ(Messages({{"NCCL_BUFFSIZE", "0"}}).size(), 1u);
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
  EXPECT_EQ(Messages({{"NCCL_IB_GID_INDEX", "x"}}).size(), 1u);  // no digits: NCCL reads 0
}

TEST(NcclEnvTest, TopoFileAndLevelsAreChecked) {
  EXPECT_EQ(Messages({{"NCCL_TOPO_FILE", "/nonexistent/topo.xml"}}).size(), 1u);
  EXPECT_TRUE(Messages({{"NCCL_P2P_LEVEL", "NVL"}, {"NCCL_NET_GDR_LEVEL", "2"}}).empty());
  // Names newer NCCL knows, and numbers (clamped to SYS).
  for (const char* v : {"NVB", "PXN", "C2C", "P2C", "9", "42"}) {
    EXPECT_TRUE(Messages({{"NCCL_NET_GDR_LEVEL", v}}).empty()) << v;
  }
  // What NCCL does not read it ignores: a warning, not a failure.
  EXPECT_EQ(Messages({{"NCCL_NET_GDR_LEVEL", "PCI"}}, "NCCL_ENV_IGNORED").size(), 1u);
  EXPECT_EQ(Messages({{"NCCL_P2P_LEVEL", "nvl"}}, "NCCL_ENV_IGNORED").size(), 1u);
}

}  // namespace
}  // namespace nodeprobe::nccl_env
