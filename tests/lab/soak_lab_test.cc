// Short soaks in the namespace lab. The two-node stage's TCP transfers
// between gpu-a and gpu-b (each sender shaped to 1 Gbit/s) repeated for
// 20 s. The run holds a series per direction with a figure per round,
// their spread and drift, and the table and HTML show them. The cluster's
// ring over four nodes, pass after pass, the same per direction.
#include <string>

#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/lab/fleet_fixture.h"

namespace nodeprobe::lab {
namespace {

TEST_F(ControlPlaneLabTest, ASoakReportsEachRoundsFiguresAndTheirSpread) {
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  const int rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--soak", "20s",
                         "--transfer-seconds", "1", "--format", "json"},
                        false, &out, absl::Seconds(120));
  v1::StageRun run = ParseRun(out);
  EXPECT_TRUE(rc == 0 || rc == 1) << out;
  EXPECT_EQ(run.soak().duration_s(), 20);
  EXPECT_GE(run.soak().intervals(), 3u) << out;
  ASSERT_EQ(run.soak().series_size(), 2) << out;
  for (const v1::SoakSeries& s : run.soak().series()) {
    EXPECT_EQ(s.op(), "STREAM_BW");
    EXPECT_GE(s.points_size(), 3);
    // Shaped at 1 Gbit/s: every figure near it, and the spread says how near.
    EXPECT_GT(s.min_gbps(), 0.3) << s.DebugString();
    EXPECT_LT(s.max_gbps(), 1.2) << s.DebugString();
    EXPECT_GE(s.spread(), 0);
    EXPECT_LT(s.spread(), 0.5) << s.DebugString();
    for (int i = 1; i < s.points_size(); ++i) {
      EXPECT_GT(s.points(i).at_s(), s.points(i - 1).at_s());
    }
    // The rounds ran for the soak's length, not past it by more than a round.
    EXPECT_GT(s.points(s.points_size() - 1).at_s(), 10);
    EXPECT_LT(s.points(s.points_size() - 1).at_s(), 40);
  }
  // The table says it too.
  std::string table;
  Client({"report", "--run", run.run_id()}, false, &table);
  EXPECT_NE(table.find("soak: 20 s"), std::string::npos) << table;
  EXPECT_NE(table.find("gpu-a -> gpu-b"), std::string::npos) << table;
  // A soak is for the two-node and cluster stages, and needs the time to run.
  EXPECT_EQ(
      Client({"run", "--stage", "single-node", "--nodes", "gpu-a", "--soak", "20s"}, false, &out),
      2)
      << out;
  EXPECT_NE(out.find("--soak"), std::string::npos) << out;
  EXPECT_EQ(Client({"run", "--stage", "preflight", "--soak", "20s"}, false, &out), 2) << out;
  EXPECT_NE(out.find("a pre-flight is one look"), std::string::npos) << out;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--soak", "10m",
                    "--timeout", "300"},
                   false, &out),
            2)
      << out;
  EXPECT_NE(out.find("--timeout"), std::string::npos) << out;
}

// The cluster's ring over four nodes, pass after pass for 20 s: every
// direction of every pair is a series of its own, judged over time.
TEST_F(ClusterLabTest, AClusterSoakRepeatsThePatternForEachDirection) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const int rc =
      Cluster({"--nodes", "gpu-a,gpu-b,gpu-d,gpu-e", "--pattern", "ring", "--soak", "20s"}, &out);
  v1::StageRun run = ParseRun(out);
  EXPECT_TRUE(rc == 0 || rc == 1) << out;
  EXPECT_EQ(run.soak().duration_s(), 20);
  // How many passes fit in 20 s is the machine's: under ASan on a busy
  // 2-core CI machine a pass of the ring took ~10 s (2 passes). Repeated
  // at all is what a series over time needs.
  EXPECT_GE(run.soak().intervals(), 2u) << out;
  ASSERT_EQ(run.soak().series_size(), 8) << "4 ring pairs, both directions\n" << out;
  for (const v1::SoakSeries& s : run.soak().series()) {
    EXPECT_GE(s.points_size(), 2) << s.DebugString();
    EXPECT_GT(s.mean_gbps(), 0) << s.DebugString();
    for (int i = 1; i < s.points_size(); ++i) {
      EXPECT_GT(s.points(i).at_s(), s.points(i - 1).at_s());
      EXPECT_EQ(s.points(i).round(), static_cast<uint32_t>(i + 1));
    }
  }
  // The path MTU was the first pass's only: one per pair direction.
  int mtu = 0;
  for (const v1::PairResult& p : run.pairs()) mtu += p.result().has_mtu();
  EXPECT_LE(mtu, 8) << out;
}

}  // namespace
}  // namespace nodeprobe::lab
