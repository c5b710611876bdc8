// The cluster stage's storage storm in the namespace lab: four agents whose
// processes share one block-I/O cgroup limiting one ext4 loop device to
// 16 MiB/s of writes, the "shared filesystem" of the profile's
// storage.paths. One node alone writes its 8 MiB checkpoint in about
// 0.5 s; the four at once share the limit, so the storm takes about 2 s,
// its aggregate is the limit, the slowest node is several times slower
// than alone, and the completion bar of 1.5 s FAILs as STORAGE_STORM_SLOW.
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/lab/fleet_fixture.h"
#include "tests/lab/throttled_fs.h"

namespace nodeprobe::lab {
namespace {

TEST_F(ClusterLabTest, AStorageStormSharesTheFilesystemAndIsJudgedAsOneCheckpoint) {
  if (absl::Status ok = ThrottledFs::Available(); !ok.ok()) GTEST_SKIP() << ok.message();
  ThrottledFs shared(dir_.path());
  ASSERT_TRUE(shared.status().ok()) << shared.status();
  shared.Throttle(16 << 20, 64 << 20);
  // Each agent in the cgroup: its task workers follow it.
  ASSERT_TRUE(StartFourNodes([&](pid_t agent) { shared.Add(agent); }));
  const std::string profile = dir_.path() + "/storm.yaml";
  testing::WriteFile(profile, absl::StrCat("storage:\n  paths: [", shared.mount(),
                                           "]\n  writers: 1\n  shard_mb: 8\n"
                                           "  metadata_files: 0\n  checkpoint_max_s: 1.5\n"));
  std::string out;
  const int rc =
      Cluster({"--all", "--pattern", "ring", "--storage-storm", "--profile", profile}, &out);
  EXPECT_EQ(rc, 1) << out;
  const v1::StageRun run = ParseRun(out);
  const v1::StorageStormReport& s = run.storage_storm();
  ASSERT_EQ(s.nodes_size(), 4) << out;
  std::cout << "storm: " << s.ShortDebugString() << "\n";
  EXPECT_EQ(s.path(), shared.mount());
  EXPECT_GT(s.alone_checkpoint_s(), 0.3) << "8 MiB at 16 MiB/s";
  EXPECT_LT(s.alone_checkpoint_s(), 1.0);
  EXPECT_GT(s.storm_s(), 1.6) << "32 MiB at 16 MiB/s";
  EXPECT_GT(s.aggregate_write_gbps(), 0.08) << "the limit is 0.134 Gb/s";
  EXPECT_LT(s.aggregate_write_gbps(), 0.17);
  EXPECT_GT(s.slowdown(), 2.0) << s.DebugString();
  EXPECT_FALSE(s.slowest_node().empty());
  for (const v1::StorageStormNode& n : s.nodes()) {
    EXPECT_TRUE(n.error().empty()) << n.node() << ": " << n.error();
    EXPECT_GT(n.write_gbps(), 0) << n.node();
  }
  EXPECT_TRUE(HasFinding(run, "STORAGE_STORM_SLOW", shared.mount())) << out;
  // A latency probe between two nodes, idle and beside the storm (here the
  // storage does not share their wire: both figures, no judgement asserted).
  EXPECT_FALSE(s.latency_from().empty());
  EXPECT_GT(s.idle_latency().p99_us(), 0) << s.DebugString();
  EXPECT_GT(s.storm_latency().p99_us(), 0) << s.DebugString();
  // The single-node step left storage to the storm.
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) EXPECT_NE(p.probe(), "storage") << r.node();
  }
  EXPECT_TRUE(shared.LeftBehind().empty()) << shared.LeftBehind()[0];
  // The table says it; the option is the cluster stage's, and needs a path.
  std::string table;
  Client({"report", "--run", run.run_id()}, false, &table);
  EXPECT_NE(table.find("storage storm on " + shared.mount() + ": 4 nodes at once"),
            std::string::npos)
      << table;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--storage-storm"},
                   false, &out),
            2);
  EXPECT_NE(out.find("--storage-storm is an option of the cluster stage"), std::string::npos)
      << out;
  EXPECT_EQ(Cluster({"--all", "--storage-storm"}, &out), 2);
  EXPECT_NE(out.find("needs the shared checkpoint path"), std::string::npos) << out;
}

}  // namespace
}  // namespace nodeprobe::lab
