// Path-MTU and interface-chain checks between network namespaces, with the
// real `nodeprobe` binary: direct links, a router whose egress is smaller
// (with and without ICMP), ends that differ, chains built for the purpose,
// and --netns by name and by PID.
#include <set>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/lab/lab.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe::lab {
namespace {

bool Has(const v1::ProbeResult& r, const std::string& code) {
  for (const auto& f : r.findings()) {
    if (f.code() == code) return true;
  }
  return false;
}

class MtuLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status available = Lab::Available();
    if (!available.ok()) GTEST_SKIP() << "network-namespace lab: " << available.message();
    lab_ = std::make_unique<Lab>();
    ASSERT_TRUE(lab_->AddHost("a").ok());
    ASSERT_TRUE(lab_->AddHost("b").ok());
  }

  void Direct(int mtu_a, int mtu_b) {
    ASSERT_TRUE(lab_->Link("a", "10.81.1.1/24", "b", "10.81.1.2/24", mtu_a).ok());
    if (mtu_b != mtu_a) {
      ASSERT_TRUE(lab_->Exec("b", absl::StrCat("ip link set dev ba mtu ", mtu_b)).ok());
    }
    peer_ = "10.81.1.2";
  }

  // a (9000) -- r -- b (9000), r's interface toward b at 1500.
  void Routed() {
    ASSERT_TRUE(lab_->AddHost("r").ok());
    ASSERT_TRUE(lab_->Link("a", "10.82.1.1/24", "r", "10.82.1.2/24", 9000).ok());
    absl::Status rb = lab_->Link("r", "10.82.2.1/24", "b", "10.82.2.2/24", 9000);
    ASSERT_TRUE(rb.ok()) << rb;
    ASSERT_TRUE(lab_->Exec("r", "ip link set dev rb mtu 1500").ok());
    ASSERT_TRUE(lab_->EnableForwarding("r").ok());
    ASSERT_TRUE(lab_->Exec("a", "ip route add default via 10.82.1.2").ok());
    ASSERT_TRUE(lab_->Exec("b", "ip route add default via 10.82.2.1").ok());
    peer_ = "10.82.2.2";
  }

  void StartResponder() {
    ASSERT_TRUE(lab_->Spawn("b", {NODEPROBE_BINARY, "mtu", "serve"}, "responder.log").ok());
    ASSERT_TRUE(lab_->WaitForLog("responder.log", "listening", absl::Seconds(5)).ok());
  }

  v1::ProbeResult Probe(int* exit_code, absl::Duration* took = nullptr) {
    absl::Time start = absl::Now();
    auto pid = lab_->Spawn("a", {NODEPROBE_BINARY, "mtu", "probe", "--peer", peer_, "--format",
                                 "json", "--timeout", "40"},
                           "probe.log");
    EXPECT_TRUE(pid.ok());
    if (!pid.ok()) return {};
    auto rc = lab_->Wait(*pid, absl::Seconds(60));
    EXPECT_TRUE(rc.ok()) << rc.status();
    if (took) *took = absl::Now() - start;
    *exit_code = rc.ok() ? *rc : -1;
    v1::ProbeResult r;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(lab_->ReadLog("probe.log"), &r).ok())
        << lab_->ReadLog("probe.log");
    return r;
  }

  std::unique_ptr<Lab> lab_;
  std::string peer_;
};

TEST_F(MtuLabTest, DirectJumboLinkPasses) {
  Direct(9000, 9000);
  StartResponder();
  int rc = -1;
  v1::ProbeResult r = Probe(&rc);
  EXPECT_EQ(rc, 0) << r.DebugString();
  ASSERT_EQ(r.mtu().paths_size(), 2);
  EXPECT_EQ(r.mtu().paths(0).path_mtu(), 9000u);
  EXPECT_EQ(r.mtu().paths(1).path_mtu(), 9000u);
  EXPECT_EQ(r.mtu().peer_iface_mtu(), 9000u);
}

TEST_F(MtuLabTest, RouterWithSmallerEgressIsFoundWithTheRoutersAddress) {
  Routed();
  StartResponder();
  int rc = -1;
  v1::ProbeResult r = Probe(&rc);
  EXPECT_EQ(rc, 1);
  const v1::PathMtu& fwd = r.mtu().paths(0);
  EXPECT_EQ(fwd.path_mtu(), 1500u);
  EXPECT_EQ(fwd.iface_mtu(), 9000u);
  EXPECT_EQ(fwd.limiting_hop(), "10.82.1.2");
  EXPECT_EQ(fwd.icmp_mtu(), 1500u);
  EXPECT_TRUE(Has(r, "MTU_PATH_SMALLER_THAN_IFACE")) << r.DebugString();
}

TEST_F(MtuLabTest, RouterThatDropsIcmpIsABlackHoleFoundInTime) {
  Routed();
  // A policy rule blackholes what the router itself sends toward a (its
  // ICMP errors: locally originated traffic matches `iif lo`); traffic it
  // forwards from b to a is untouched.
  ASSERT_TRUE(lab_->Exec("r", "ip rule add iif lo to 10.82.1.1 blackhole").ok());
  StartResponder();
  int rc = -1;
  absl::Duration took;
  v1::ProbeResult r = Probe(&rc, &took);
  EXPECT_EQ(rc, 1);
  EXPECT_LT(took, absl::Seconds(40));
  EXPECT_EQ(r.mtu().paths(0).path_mtu(), 1500u);
  EXPECT_TRUE(r.mtu().paths(0).blackhole());
  EXPECT_TRUE(Has(r, "MTU_PATH_BLACKHOLE")) << r.DebugString();
  RecordProperty("blackhole_seconds", absl::StrCat(absl::ToDoubleSeconds(took)));
}

TEST_F(MtuLabTest, EndsWithDifferentMtusArePeersDiffer) {
  Direct(9000, 1500);
  StartResponder();
  int rc = -1;
  v1::ProbeResult r = Probe(&rc);
  EXPECT_EQ(rc, 1);
  EXPECT_TRUE(Has(r, "MTU_PEERS_DIFFER")) << r.DebugString();
  // A veth end accepts its MTU plus 4 bytes (room for a VLAN tag), and the
  // measurement shows exactly that: 1500..1504 gets through.
  EXPECT_GE(r.mtu().paths(0).path_mtu(), 1500u);
  EXPECT_LE(r.mtu().paths(0).path_mtu(), 1504u);
}

TEST_F(MtuLabTest, ChainsBuiltForThePurposeAreJudged) {
  // In a: a veth pair whose ends disagree, and a bridge with a smaller member.
  ASSERT_TRUE(lab_->Exec("a", "ip link add v0 mtu 9000 type veth peer name v1 mtu 1500").ok());
  // Bridge members are veth ends (this kernel has no dummy driver).
  absl::Status s = lab_->Exec("a", "ip link add d1 mtu 9000 type veth peer name d1p mtu 9000 && "
                                   "ip link add d2 mtu 1500 type veth peer name d2p mtu 1500 && "
                                   "ip link add br0 type bridge && ip link set d1 master br0 && "
                                   "ip link set d2 master br0 && ip link set br0 mtu 1500");
  ASSERT_TRUE(s.ok()) << s;
  testing::TempDir dir;
  const std::string profile = dir.path() + "/p.yaml";
  testing::WriteFile(profile, "mtu:\n  interfaces: [v0, br0, d1]\n");
  auto pid = lab_->Spawn("a", {NODEPROBE_BINARY, "run", "--stage", "single-node", "--probe",
                               "mtu", "--profile", profile, "--format", "json"},
                         "chain.log");
  ASSERT_TRUE(pid.ok());
  auto rc = lab_->Wait(*pid, absl::Seconds(20));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 1) << lab_->ReadLog("chain.log");
  v1::StageReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lab_->ReadLog("chain.log"), &report).ok());
  const v1::ProbeResult& r = report.results(0);
  std::set<std::string> flagged;
  for (const auto& f : r.findings()) {
    if (f.code() == "MTU_CHAIN_MISMATCH") flagged.insert(f.device());
  }
  EXPECT_EQ(flagged, (std::set<std::string>{"v0", "br0", "d1"})) << r.DebugString();
}

TEST_F(MtuLabTest, NetnsByNameAndByPidAndAClearErrorForNone) {
  Direct(9000, 9000);
  StartResponder();
  auto by_name = testing::RunBinary(NODEPROBE_BINARY,
                                    {"mtu", "probe", "--peer", peer_, "--netns",
                                     lab_->Namespace("a"), "--format", "json"});
  EXPECT_EQ(by_name.exit_code, 0) << by_name.out << by_name.err;
  auto sleeper = lab_->Spawn("a", {"sleep", "30"}, "sleep.log");
  ASSERT_TRUE(sleeper.ok());
  auto by_pid = testing::RunBinary(NODEPROBE_BINARY,
                                   {"mtu", "probe", "--peer", peer_, "--netns",
                                    absl::StrCat(*sleeper), "--format", "json"});
  EXPECT_EQ(by_pid.exit_code, 0) << by_pid.out << by_pid.err;
  auto none = testing::RunBinary(NODEPROBE_BINARY,
                                 {"mtu", "probe", "--peer", peer_, "--netns", "np-no-such-ns"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("np-no-such-ns"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::lab
