// The loopback probe's choices and judgement on captured trees and on
// outcomes shaped like real runs; the data path itself runs where an HCA
// is (the live test below, and hwtests/).
#include "probes/rdma_loopback/rdma_loopback_probe.h"

#include <unistd.h>

#include "gtest/gtest.h"
#include "probes/transfer/rdma_loopback.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

bool HasFinding(const v1::ProbeResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code) return true;
  }
  return false;
}

TEST(RdmaLoopbackTest, EveryActivePortOfACaptureIsATarget) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  std::vector<std::string> down;
  std::vector<LoopbackTarget> t = *LoopbackTargets(platform::FileTree((*host)->sys_root), &down);
  // node_exporter's capture: i40iw0 port 1 and both mlx4_0 ports ACTIVE.
  ASSERT_EQ(t.size(), 3u);
  EXPECT_TRUE(down.empty());
  EXPECT_EQ(t[0].device, "i40iw0");
  EXPECT_EQ(t[1].device, "mlx4_0");
  EXPECT_EQ(t[1].port, 1u);
  EXPECT_EQ(t[2].port, 2u);
  EXPECT_EQ(t[1].link_layer, "InfiniBand");
  // A port taken down is left to rdma-devices, and said so.
  testing::WriteFile((*host)->sys_root + "/class/infiniband/mlx4_0/ports/2/state", "1: DOWN\n");
  down.clear();
  t = *LoopbackTargets(platform::FileTree((*host)->sys_root), &down);
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(down, std::vector<std::string>{"mlx4_0:2"});
}

// A RoCE port whose address sits on a VLAN (its base netdev carries only
// the link-local GID), or that has no address at all, still loops: two QPs
// on one port need no route, so any valid GID serves.
TEST(RdmaLoopbackTest, ARocePortWithoutAnAddressStillHasAGidToLoopThrough) {
  using transfer::GidCandidate;
  const std::vector<GidCandidate> link_local_only = {
      {0, "fe80:0000:0000:0000:0ac4:7aff:fe00:0001", "IB/RoCE v1", "eth1"},
      {1, "fe80:0000:0000:0000:0ac4:7aff:fe00:0001", "RoCE v2", "eth1"}};
  absl::StatusOr<transfer::GidChoice> g = transfer::SelectLoopbackGid(link_local_only, "Ethernet");
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->index, 1u);  // RoCE v2, though link-local
  std::vector<GidCandidate> on_vlan = link_local_only;
  on_vlan.push_back({3, "0000:0000:0000:0000:0000:ffff:c0a8:0705", "RoCE v2", "eth1.100"});
  g = transfer::SelectLoopbackGid(on_vlan, "Ethernet");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->index, 3u);  // the one with an address first
  EXPECT_EQ(transfer::SelectLoopbackGid({}, "Ethernet").status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(transfer::SelectLoopbackGid({}, "InfiniBand")->index, 0u);
}

TEST(RdmaLoopbackTest, ACapturedTreeIsSkipNamingThePortsNotARunOnThisHost) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  Profile profile;
  ProbeContext ctx;
  ctx.host.sys_root = (*host)->sys_root;
  ctx.profile = &profile;
  RdmaLoopbackProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_NE(r->reason().find("captured"), std::string::npos) << r->reason();
  EXPECT_EQ(r->evidence_size(), 3);
  EXPECT_EQ(r->measurements_size(), 0);
}

TEST(RdmaLoopbackTest, NoRdmaDeviceIsSkip) {
  testing::TempDir empty;
  Profile profile;
  ProbeContext ctx;
  ctx.host.sys_root = empty.path();
  ctx.profile = &profile;
  RdmaLoopbackProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict(), v1::SKIP);
  EXPECT_EQ(r->reason(), "no RDMA device on this host");
}

transfer::LoopbackOutcome Outcome(double gbps, double lat_us) {
  transfer::LoopbackOutcome o;
  for (v1::TransferReport* r : {&o.write_bw, &o.write_lat}) {
    r->set_transport(v1::RDMA);
    r->set_device("mlx4_0:1");
    r->set_peer("itself (loopback)");
  }
  o.write_bw.set_op(v1::WRITE_BW);
  o.write_lat.set_op(v1::WRITE_LAT);
  v1::TransferResult* bw = o.write_bw.add_results();
  bw->set_size(65536);
  bw->set_bw_avg_gbps(gbps);
  v1::TransferResult* lat = o.write_lat.add_results();
  lat->set_size(2);
  lat->mutable_latency()->set_median_us(lat_us);
  return o;
}

// The capture's QDR port: 40 Gb/s data rate x InfiniBand headers at 4096
// (4096/4122) x 0.90 = 35.77 Gb/s.
transfer::LinkFacts Qdr() {
  transfer::LinkFacts f;
  f.link = "mlx4_0:1";
  f.link_layer = "InfiniBand";
  f.line_gbps = 40;
  return f;
}

TEST(RdmaLoopbackTest, APortBelowItsRateFailsAndAHealthyOnePasses) {
  Profile profile;
  v1::ProbeResult healthy;
  JudgeLoopback(Outcome(37.5, 1.1), Qdr(), profile, false, &healthy);
  EXPECT_EQ(healthy.findings_size(), 0);
  ASSERT_EQ(healthy.measurements_size(), 2);
  EXPECT_EQ(healthy.measurements(0).name(), "loopback_write_bw");
  EXPECT_EQ(healthy.measurements(0).labels().at("device"), "mlx4_0:1");

  v1::ProbeResult slow;
  JudgeLoopback(Outcome(20.0, 1.1), Qdr(), profile, false, &slow);
  ASSERT_TRUE(HasFinding(slow, "TRANSFER_BELOW_EXPECTED"));
  EXPECT_EQ(slow.findings(0).severity(), v1::FAIL);
  EXPECT_NE(slow.findings(0).message().find("35.77"), std::string::npos)
      << slow.findings(0).message();
}

TEST(RdmaLoopbackTest, TheProfilesLatencyBarAndABrokenDataPathAreFindings) {
  absl::StatusOr<Profile> profile =
      ParseProfile("transfer:\n  rdma_write_lat_max_us: 1.5\n", "test.yaml");
  ASSERT_TRUE(profile.ok()) << profile.status();
  v1::ProbeResult slow;
  JudgeLoopback(Outcome(37.5, 2.4), Qdr(), *profile, false, &slow);
  EXPECT_TRUE(HasFinding(slow, "LATENCY_ABOVE_EXPECTED"));

  transfer::LoopbackOutcome broken = Outcome(3.0, 0);
  broken.write_bw.mutable_results(0)->set_partial(true);
  broken.write_lat.clear_results();
  broken.write_bw.set_memory("gpu 0 (gpu peermem)");
  broken.status = absl::UnavailableError("work completion error: remote access error");
  v1::ProbeResult r;
  JudgeLoopback(broken, Qdr(), *profile, true, &r);
  ASSERT_TRUE(HasFinding(r, "RDMA_LOOPBACK_FAILED"));
  EXPECT_FALSE(HasFinding(r, "TRANSFER_BELOW_EXPECTED"));  // a partial row is not judged
  const v1::Finding& f = r.findings(r.findings_size() - 1);
  EXPECT_NE(f.message().find("from gpu 0"), std::string::npos) << f.message();
  EXPECT_NE(f.remediation().find("GPUDirect"), std::string::npos);
}

TEST(RdmaLoopbackTest, LiveHcaLoopsThroughEveryActivePort) {
  if (access("/sys/class/infiniband", F_OK) != 0) {
    GTEST_SKIP() << "no RDMA device on this machine; hwtests/ run the loopback on an HCA";
  }
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  RdmaLoopbackProbe probe;
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(HasFinding(*r, "RDMA_LOOPBACK_FAILED")) << r->DebugString();
}

}  // namespace
}  // namespace nodeprobe
