#include "coordinator/stages/storage_storm/storage_storm.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

v1::StoragePath Wrote(absl::Time start, double seconds, double gbps) {
  v1::StoragePath p;
  p.set_path("/mnt/ckpt");
  p.set_writers(2);
  p.set_shard_bytes(500'000'000);  // 1 GB per node
  *p.mutable_write_started() = StampOf(start);
  p.set_checkpoint_s(seconds);
  p.set_write_gbps(gbps);
  p.set_read_seq_gbps(4);
  return p;
}

Profile WithBar(double max_s) {
  Profile p;
  absl::StatusOr<Profile> parsed = ParseProfile(
      "storage:\n  paths: [/mnt/ckpt]\n  checkpoint_max_s: " + std::to_string(max_s) + "\n",
      "test.yaml");
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : p;
}

TEST(StorageStormTest, SpanAggregateSlowestAndSlowdownFromTheNodesFigures) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  v1::StageRun run;
  JudgeStorageStorm("a", Wrote(t0 - absl::Seconds(60), 1.0, 8),
                    {{"a", Wrote(t0, 2.0, 4)},
                     {"b", Wrote(t0 + absl::Milliseconds(500), 3.5, 2.3)},
                     {"c", Wrote(t0 + absl::Milliseconds(100), 2.0, 4)}},
                    WithBar(10), &run);
  const v1::StorageStormReport& s = run.storage_storm();
  EXPECT_EQ(s.nodes_size(), 3);
  EXPECT_DOUBLE_EQ(s.storm_s(), 4.0);  // t0 to b's end at 0.5 + 3.5
  EXPECT_DOUBLE_EQ(s.aggregate_write_gbps(), 3e9 * 8 / 1e9 / 4.0);
  EXPECT_EQ(s.slowest_node(), "b");
  EXPECT_DOUBLE_EQ(s.slowdown(), 3.5);
  EXPECT_DOUBLE_EQ(s.aggregate_read_gbps(), 12);
  EXPECT_EQ(run.findings_size(), 0) << "4 s is within the 10 s bar";
}

TEST(StorageStormTest, AStormPastTheCompletionBarFailsAndANodeWithoutFiguresIsSaid) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  v1::StoragePath broken;
  broken.set_path("/mnt/ckpt");
  broken.set_error("cannot make a scratch directory under /mnt/ckpt: it is not writable");
  v1::StageRun run;
  JudgeStorageStorm("a", Wrote(t0, 1.0, 8), {{"a", Wrote(t0, 6.0, 1.3)}, {"b", broken}}, WithBar(5),
                    &run);
  ASSERT_EQ(run.findings_size(), 2);
  EXPECT_EQ(run.findings(0).code(), "STORAGE_NOT_MEASURED");
  EXPECT_EQ(run.findings(0).device(), "b /mnt/ckpt");
  EXPECT_EQ(run.findings(1).code(), "STORAGE_STORM_SLOW");
  EXPECT_EQ(run.findings(1).severity(), v1::FAIL);
  EXPECT_NE(run.findings(1).message().find("took 6.0 s"), std::string::npos)
      << run.findings(1).message();
  EXPECT_EQ(run.storage_storm().nodes(1).error(), broken.error());
}

// Latency beside the storm: judged against congestion.max_latency_ratio
// (10 by default) times the idle p99.
TEST(StorageStormTest, LatencyThatBlowsUpDuringTheStormWarns) {
  const absl::Time t0 = absl::FromUnixSeconds(1'700'000'000);
  for (const auto& [storm_p99, warns] : {std::pair<double, bool>{90, false}, {110, true}}) {
    v1::StageRun run;
    v1::StorageStormReport* s = run.mutable_storage_storm();
    s->set_latency_from("b");
    s->set_latency_to("a");
    s->mutable_idle_latency()->set_p99_us(10);
    s->mutable_storm_latency()->set_p99_us(storm_p99);
    JudgeStorageStorm("a", Wrote(t0, 1.0, 8), {{"a", Wrote(t0, 2.0, 4)}}, WithBar(10), &run);
    ASSERT_EQ(run.findings_size(), warns ? 1 : 0) << storm_p99;
    if (!warns) continue;
    EXPECT_EQ(run.findings(0).code(), "STORAGE_STORM_LATENCY");
    EXPECT_EQ(run.findings(0).severity(), v1::WARN);
    EXPECT_EQ(run.findings(0).device(), "b -> a");
    EXPECT_NE(run.findings(0).message().find("from 10.0 us idle to 110.0 us"), std::string::npos)
        << run.findings(0).message();
  }
}

TEST(StorageStormTest, SharedFilesystemsAreTheNetworkAndParallelOnes) {
  for (const char* t : {"nfs4", "lustre", "beegfs", "fuse.juicefs", "wekafs"}) {
    EXPECT_TRUE(SharedFilesystem(t)) << t;
  }
  for (const char* t : {"ext4", "xfs", "tmpfs", "overlay"}) EXPECT_FALSE(SharedFilesystem(t)) << t;
}

}  // namespace
}  // namespace nodeprobe::coordinator
