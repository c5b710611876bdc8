#include "probes/roce_config/roce_settings.h"

#include <linux/dcbnl.h>
#include <linux/rtnetlink.h>

#include <climits>
#include <cstring>

#include "absl/strings/ascii.h"
#include "gtest/gtest.h"
#include "probes/framework/probe.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/roce_config/roce_config_probe.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/roce_capture.h"

namespace nodeprobe::roce {
namespace {

using testing::ReadFixture;
using testing::WriteFile;

const char kAtt[] = "roce-qos/att-netarbiter-mlnx_qos-dscp-pfc3-cma_roce_tos.txt";
const char kSpiderpool[] = "roce-qos/spiderpool-rdma-qos-query-ecn-sysfs-cma_roce_tos.txt";

std::vector<std::string> Codes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) out.push_back(f.code());
  return out;
}

// The design the att capture was set up for: DSCP 26 (ToS 106) on the
// lossless priority 3, trusted by DSCP, with ECN.
RoceDesign LosslessPriority3() {
  RoceDesign d;
  d.tos = 106;
  d.trust = "dscp";
  d.lossless = true;
  d.ecn = true;
  return d;
}

// A port read from a tree built of spiderpool's `set-rdma-qos.sh q` listing
// (ECN on every priority for both roles, CNP DSCP 48, rdma_cm ToS 160,
// traffic class 160) with the DCB state `qos` (from an mlnx_qos capture).
class RoceSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sys_ = tmp_.path() + "/sys";
    ASSERT_GT(testing::WriteQosQueryTree(ReadFixture(kSpiderpool), sys_, "mlx5_0"), 16);
    WriteFile(sys_ + "/class/net/eth0/mtu", "9000\n");
    qos_ = testing::ParseMlnxQos(ReadFixture(kAtt));
  }
  // The att host's rdma_cm ToS and traffic class (`cma_roce_tos -t 106`,
  // `echo 106 > tc/1/traffic_class`) in place of spiderpool's 160.
  void UseAttTos() {
    ASSERT_NE(ReadFixture(kAtt).find("cma_roce_tos -d mlx5_2 -t 106"), std::string::npos);
    WriteFile(sys_ + "/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos", "106\n");
    WriteFile(sys_ + "/class/infiniband/mlx5_0/tc/1/traffic_class", "Global tclass=106\n");
  }
  RocePort Read() const {
    RocePort port;
    port.device = "mlx5_0";
    port.port = 1;
    port.netdev = "eth0";
    const platform::FileTree sys(sys_);
    ReadSysfsSettings(sys, &port);
    ReadRdmaCmDefaults(sys, /*create=*/false, &port);
    port.dcb =
        platform::ParseDcbReplies("eth0", testing::DcbIeeeReply(qos_), testing::DcbDcbxReply());
    return port;
  }
  v1::ProbeResult Judge(const RoceDesign& design) const {
    v1::ProbeResult r;
    JudgeRocePort(Read(), design, design.tos, "roce.tos", &r);
    r.set_verdict(VerdictFromFindings(r));
    return r;
  }

  testing::TempDir tmp_;
  std::string sys_;
  testing::QosState qos_;
};

TEST_F(RoceSettingsTest, TheCapturesAreReadAsTheyWere) {
  EXPECT_TRUE(qos_.trust_dscp);
  EXPECT_EQ(qos_.pfc, 1u << 3);
  ASSERT_EQ(qos_.dscp_prio.size(), 64u);
  EXPECT_EQ(qos_.dscp_prio.at(26), std::vector<int>{3});
  const RocePort port = Read();
  ASSERT_TRUE(port.dcb.ok()) << port.dcb.status();
  EXPECT_TRUE(port.dcb->has_pfc);
  EXPECT_EQ(port.dcb->pfc_enabled, 1u << 3);
  EXPECT_EQ(port.dcb->pfc_cap, 8);
  EXPECT_EQ(port.dcb->dscp_prio.size(), 64u);
  ASSERT_TRUE(port.dcb->dcbx.has_value());
  EXPECT_EQ(platform::DcbxModeName(*port.dcb->dcbx), "host (OS controlled), IEEE");
  EXPECT_EQ(port.ecn_np.size(), 8u);
  EXPECT_EQ(port.ecn_rp.size(), 8u);
  EXPECT_TRUE(port.ecn_np.at(3) && port.ecn_rp.at(3));
  EXPECT_EQ(port.cnp_dscp, 48);
  EXPECT_EQ(port.default_tos, 160);
  EXPECT_EQ(port.default_mode, "RoCE v2");
  EXPECT_EQ(port.traffic_class, 160);
  EXPECT_EQ(port.mtu, 9000);
}

TEST_F(RoceSettingsTest, Pfc3OnlyWithTrustDscpPassesALosslessPriority3Design) {
  UseAttTos();
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  EXPECT_EQ(r.evidence().at("mlx5_0:1 RDMA priority"),
            "3 (ToS 106 (roce.tos) = DSCP 26 -> priority 3 by eth0's DSCP map)");
}

TEST_F(RoceSettingsTest, PfcOnPriorityZeroTooIsTooWide) {
  UseAttTos();
  qos_.pfc |= 1u << 0;
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r), std::vector<std::string>{"ROCE_PFC_SCOPE_TOO_WIDE"});
  EXPECT_EQ(r.verdict(), v1::WARN);
  EXPECT_NE(r.findings(0).message().find("priority 0 besides the RDMA priority 3"),
            std::string::npos);
}

TEST_F(RoceSettingsTest, PfcOffOnTheRdmaPriorityIsNotLossless) {
  // spiderpool's host: PFC on priority 5 only, while ToS 106 rides 3.
  qos_.pfc = testing::ParseMlnxQos(ReadFixture(kSpiderpool)).pfc;
  ASSERT_EQ(qos_.pfc, 1u << 5);
  UseAttTos();
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"ROCE_RDMA_PRIORITY_NOT_LOSSLESS",
                                                "ROCE_PFC_SCOPE_TOO_WIDE"}));
  EXPECT_EQ(r.verdict(), v1::FAIL);
}

TEST_F(RoceSettingsTest, EcnOffForTheReactionPointIsDisabled) {
  UseAttTos();
  WriteFile(sys_ + "/class/net/eth0/ecn/roce_rp/enable/3", "0\n");
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r), std::vector<std::string>{"ROCE_ECN_DISABLED"});
  EXPECT_NE(r.findings(0).message().find("roce_rp (reaction point) on the RDMA priority 3"),
            std::string::npos);
}

// An ECN switch reading 2, or a traffic class file that is not one: not
// read, never taken as enabled or as no override.
TEST_F(RoceSettingsTest, SwitchesAndClassesThatAreNotValuesAreNotRead) {
  UseAttTos();
  WriteFile(sys_ + "/class/net/eth0/ecn/roce_np/enable/3", "2\n");
  const v1::ProbeResult ecn = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(ecn), std::vector<std::string>{"ROCE_CONFIG_NOT_READABLE"});
  EXPECT_NE(ecn.findings(0).message().find("reads 2, not 0 or 1"), std::string::npos)
      << ecn.findings(0).message();
  WriteFile(sys_ + "/class/net/eth0/ecn/roce_np/enable/3", "1\n");
  WriteFile(sys_ + "/class/infiniband/mlx5_0/tc/1/traffic_class", "Global tclass=banana\n");
  const v1::ProbeResult tc = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(tc), std::vector<std::string>{"ROCE_CONFIG_NOT_READABLE"});
  EXPECT_NE(tc.findings(0).message().find("not a traffic class"), std::string::npos)
      << tc.findings(0).message();
  WriteFile(sys_ + "/class/infiniband/mlx5_0/tc/1/traffic_class", "Global tclass=-1\n");
  EXPECT_TRUE(Codes(Judge(LosslessPriority3())).empty());
}

TEST_F(RoceSettingsTest, NoDscpMapIsTrustMismatchAndThePriorityUnknown) {
  qos_.trust_dscp = false;
  UseAttTos();
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"ROCE_TRUST_MISMATCH", "ROCE_CONFIG_NOT_READABLE",
                                                "ROCE_CONFIG_NOT_READABLE"}));
  EXPECT_NE(r.findings(1).message().find("trusts PCP, not DSCP: set roce.rdma_priority"),
            std::string::npos);
}

TEST_F(RoceSettingsTest, SpiderpoolsTos160IsNotTheDesigned106) {
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r), (std::vector<std::string>{"ROCE_TOS_MISMATCH", "ROCE_TOS_MISMATCH"}));
  EXPECT_NE(r.findings(0).message().find("default RoCE ToS is 160, the design's is 106"),
            std::string::npos);
}

TEST_F(RoceSettingsTest, NoEcnTreeOrConfigfsIsNotReadableNeverPass) {
  UseAttTos();
  testing::RemoveTree(sys_ + "/class/net/eth0/ecn");
  testing::RemoveTree(sys_ + "/kernel");
  const v1::ProbeResult r = Judge(LosslessPriority3());
  EXPECT_EQ(Codes(r),
            (std::vector<std::string>{"ROCE_CONFIG_NOT_READABLE", "ROCE_CONFIG_NOT_READABLE"}));
  EXPECT_EQ(r.verdict(), v1::ERROR);
  EXPECT_NE(r.findings(1).message().find("configfs not mounted or rdma_cm not loaded"),
            std::string::npos);
}

TEST_F(RoceSettingsTest, WithoutADesignNothingIsJudgedButEverythingIsRecorded) {
  v1::ProbeResult r;
  RocePort port = Read();
  EXPECT_EQ(JudgeRocePort(port, RoceDesign{}, std::nullopt, "", &r), 0);
  EXPECT_EQ(r.findings_size(), 0);
  EXPECT_EQ(r.evidence().at("mlx5_0:1 (eth0) PFC enabled priorities"), "3 (capacity 8, delay 0)");
  v1::ConfigReport config;
  AddRoceSettings(port, &config);
  std::map<std::string, std::string> got;
  for (const v1::Setting& s : config.settings()) {
    EXPECT_EQ(s.device(), "mlx5_0:1");
    got[s.name()] = s.value();
  }
  EXPECT_EQ(got["roce.pfc"], "3");
  EXPECT_EQ(got["roce.trust"], "dscp");
  EXPECT_EQ(got["roce.ecn_np"], "0,1,2,3,4,5,6,7");
  EXPECT_EQ(got["roce.default_tos"], "160");
  EXPECT_EQ(got["roce.mtu"], "9000");
}

TEST_F(RoceSettingsTest, AStormSinceTheDriverLoadedWarns) {
  UseAttTos();
  RocePort port = Read();
  port.storm["tx_pause_storm_error_events"] = 2;
  v1::ProbeResult r;
  JudgeRocePort(port, LosslessPriority3(), 106, "roce.tos", &r);
  EXPECT_EQ(Codes(r), std::vector<std::string>{"ROCE_PAUSE_STORM"});
  EXPECT_EQ(r.findings(0).severity(), v1::WARN);
}

TEST(RoceProfileTest, TheSectionIsReadAndItsMistakesNamedWithTheirLine) {
  absl::StatusOr<Profile> p =
      ParseProfile("roce:\n  tos: 106\n  trust: dscp\n  lossless: true\n  ecn: true\n", "r.yaml");
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->Section<RoceDesign>().tos, 106);
  EXPECT_EQ(p->Section<RoceDesign>().trust, "dscp");
  EXPECT_FALSE(p->Section<RoceDesign>().rdma_priority.has_value());
  std::string source;
  EXPECT_EQ(DesignedTos(*p, &source), 106);
  EXPECT_EQ(source, "roce.tos");
  for (const char* bad : {"roce:\n  tos: 300\n", "roce:\n  rdma_priority: 8\n",
                          "roce:\n  trust: vlan\n", "roce:\n  pfc: 3\n"}) {
    absl::StatusOr<Profile> b = ParseProfile(bad, "r.yaml");
    ASSERT_FALSE(b.ok()) << bad;
    EXPECT_NE(b.status().message().find("r.yaml:2"), std::string::npos) << b.status();
  }
  // Without roce.tos the ToS NCCL stamps is the design's.
  absl::StatusOr<Profile> nccl = ParseProfile("nccl:\n  env:\n    NCCL_IB_TC: 106\n", "n.yaml");
  ASSERT_TRUE(nccl.ok()) << nccl.status();
  EXPECT_EQ(DesignedTos(*nccl, &source), 106);
  EXPECT_EQ(source, "NCCL_IB_TC in nccl.env");
}

TEST(TrafficClassTest, ReadsTheUcxCapture) {
  const std::string text =
      ReadFixture("roce-qos/issue-ucx11105-sysfs-tc1-traffic_class-global-tclass.txt");
  const std::string value = text.substr(text.find('\n') + 1);
  EXPECT_EQ(ParseTrafficClass(std::string(absl::StripAsciiWhitespace(value))), 106);
  EXPECT_EQ(ParseTrafficClass("Global tclass=300"), std::nullopt);
  EXPECT_EQ(ParseTrafficClass("garbage"), std::nullopt);
}

TEST(CarrierNetdevsTest, AVlanIsCarriedByItsParentABondByItsMembers) {
  testing::TempDir tmp;
  WriteFile(tmp.path() + "/class/net/eth0.100/lower_eth0/x", "");
  WriteFile(tmp.path() + "/class/net/bond0/lower_eth1/x", "");
  WriteFile(tmp.path() + "/class/net/bond0/lower_eth2/x", "");
  const platform::FileTree sys(tmp.path());
  EXPECT_EQ(*CarrierNetdevs(sys, "eth0.100"), std::vector<std::string>{"eth0"});
  EXPECT_EQ(*CarrierNetdevs(sys, "bond0"), (std::vector<std::string>{"eth1", "eth2"}));
  EXPECT_EQ(*CarrierNetdevs(sys, "eth3"), std::vector<std::string>{"eth3"});
  // A capture whose lower_ links loop: an error, never an empty list that
  // would hide the RoCE port (and the port is then not readable, ERROR).
  WriteFile(tmp.path() + "/class/net/veth9/lower_veth8/x", "");
  WriteFile(tmp.path() + "/class/net/veth8/lower_veth9/x", "");
  const absl::StatusOr<std::vector<std::string>> loop = CarrierNetdevs(sys, "veth9");
  ASSERT_FALSE(loop.ok());
  EXPECT_NE(loop.status().message().find("cycle"), std::string::npos);
  RocePort port;
  port.device = "mlx5_0";
  port.port = 1;
  port.netdev = "veth9";
  port.carrier_why = std::string(loop.status().message());
  v1::ProbeResult r;
  JudgeRocePort(port, RoceDesign{}, std::nullopt, "", &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "ROCE_CONFIG_NOT_READABLE");
}

TEST(DcbRepliesTest, KernelErrorsAndDamageAreErrorsThatSaySo) {
  // The kernel's answer for a driver without dcbnl: NLMSG_ERROR, -EOPNOTSUPP.
  std::string err(NLMSG_LENGTH(sizeof(nlmsgerr)), '\0');
  auto* h = reinterpret_cast<nlmsghdr*>(err.data());
  h->nlmsg_len = err.size();
  h->nlmsg_type = NLMSG_ERROR;
  reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error = -EOPNOTSUPP;
  absl::StatusOr<platform::DcbState> s = platform::ParseDcbReplies("eth0", err, "");
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(s.status().message().find("its driver has no dcbnl"), std::string::npos);
  const std::string good = testing::DcbIeeeReply(testing::QosState{});
  for (size_t cut : {size_t{0}, size_t{8}, good.size() - 1}) {
    EXPECT_FALSE(platform::ParseDcbReplies("eth0", good.substr(0, cut), "").ok()) << cut;
  }
  // An acknowledgement (error 0: fuzz_dcbnl found that it read as OK and
  // aborted in StatusOr) or an impossible error is damage, not an answer.
  for (int e : {0, 5, INT_MIN}) {
    reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error = e;
    EXPECT_EQ(platform::ParseDcbReplies("eth0", err, "").status().code(),
              absl::StatusCode::kDataLoss)
        << e;
  }
  std::string wrong = good;
  reinterpret_cast<nlmsghdr*>(wrong.data())->nlmsg_type = RTM_NEWLINK;
  EXPECT_EQ(platform::ParseDcbReplies("eth0", wrong, "").status().code(),
            absl::StatusCode::kDataLoss);
  // Another interface's answer, and two answers in one reply, are not
  // this interface's.
  const absl::StatusOr<platform::DcbState> other =
      platform::ParseDcbReplies("eth0", testing::DcbIeeeReply(testing::QosState{}, "eth1"), "");
  EXPECT_EQ(other.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(other.status().message().find("another interface (eth1)"), std::string::npos)
      << other.status().message();
  EXPECT_EQ(platform::ParseDcbReplies("eth0", good + good, "").status().code(),
            absl::StatusCode::kDataLoss);
}

TEST(DcbRepliesTest, TheKernelAnswersForLoopbackThatItHasNoDcb) {
  // A real RTM_GETDCB round trip: lo has no dcbnl ops.
  absl::StatusOr<platform::DcbState> s = platform::ReadDcb("lo");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kUnimplemented) << s.status();
  EXPECT_EQ(platform::ReadDcb("np-no-such-if").status().code(), absl::StatusCode::kNotFound);
}

TEST(RoceConfigProbeTest, ThisHostWithoutARocePortSkipsWithTheReason) {
  RoceConfigProbe probe;
  Profile profile;
  profile.MutableSection<RoceDesign>() = LosslessPriority3();
  ProbeContext ctx;
  ctx.profile = &profile;
  testing::TempDir tmp;  // a host with no RDMA device at all
  ctx.host.sys_root = tmp.path();
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_FALSE(r->reason().empty());
}

TEST(RoceConfigProbeTest, ACapturedNodeIsReadFromItsSavedReplies) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string sys = (*host)->sys_root;
  testing::MakeRocePort(sys, "eth2", 9000);
  // The listing names eth0; this port's netdev is eth2.
  ASSERT_GT(testing::WriteQosQueryTree(ReadFixture(kSpiderpool), sys, "mlx4_0", "eth2"), 16);
  const std::string dcbnl = (*host)->dir.path() + "/dcbnl";
  WriteFile(dcbnl + "/eth2.ieee",
            testing::DcbIeeeReply(testing::ParseMlnxQos(ReadFixture(kAtt)), "eth2"));
  RoceConfigProbe probe;
  Profile profile;
  RoceDesign& d = profile.MutableSection<RoceDesign>();
  d.rdma_priority = 3;
  d.lossless = true;
  d.ecn = true;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.host.sys_root = sys;
  ctx.host.dcbnl_root = dcbnl;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->findings_size(), 0) << r->DebugString();
  EXPECT_NE(r->verdict(), v1::SKIP);
  EXPECT_GE(r->config().settings_size(), 6);
  // Without the saved replies the capture says DCB was not captured.
  testing::RemoveTree(dcbnl);
  r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(Codes(*r), std::vector<std::string>{"ROCE_CONFIG_NOT_READABLE"});
  EXPECT_NE(r->findings(0).message().find("was not captured"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::roce
