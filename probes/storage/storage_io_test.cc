#include "probes/storage/storage_io.h"

#include <unistd.h>

#include <filesystem>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::storage {
namespace {

namespace fs = std::filesystem;

class StorageIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("np-storage-io-" + std::to_string(getpid()));
    fs::create_directories(dir_);
    plan_.writers = 3;
    plan_.shard_bytes = 2 << 20;
    plan_.block_bytes = 256 << 10;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
  IoPlan plan_;
};

// The one percentile rule (platform/statistics.h, perftest's): 0-based
// index ceil(q n).
TEST(SummarizeTest, PercentilesByTheOneRule) {
  std::vector<double> ms;
  for (int i = 100; i >= 1; --i) ms.push_back(i);  // unsorted on purpose
  Latency l = Summarize(ms);
  EXPECT_EQ(l.count, 100u);
  EXPECT_EQ(l.p50_ms, 51);
  EXPECT_EQ(l.p99_ms, 100);
  EXPECT_EQ(l.max_ms, 100);
  EXPECT_EQ(Summarize({7}).p99_ms, 7);
  EXPECT_EQ(Summarize({}).count, 0u);
}

TEST_F(StorageIoTest, WritesEveryShardWholeAndReadsItAllBack) {
  absl::StatusOr<WriteFigures> w = WriteCheckpoint(dir_.string(), plan_);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_EQ(w->files.size(), 3u);
  for (const std::string& f : w->files) EXPECT_EQ(fs::file_size(f), 2u << 20) << f;
  EXPECT_EQ(w->bytes, 3u * (2 << 20));
  EXPECT_GT(w->checkpoint_s, 0);
  EXPECT_GT(w->gbps, 0);
  EXPECT_EQ(w->calls.count, 3u * 8);  // 2 MiB in 256 KiB calls
  EXPECT_EQ(w->direct, w->direct_refused.empty());
  for (ReadOrder order : {ReadOrder::kSequential, ReadOrder::kRandom}) {
    absl::StatusOr<ReadFigures> r = ReadBack(*w, plan_, order);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->bytes, w->bytes);
    EXPECT_EQ(r->calls.count, 24u);
    EXPECT_NE(r->cache.find("resident before reading"), std::string::npos) << r->cache;
  }
}

TEST_F(StorageIoTest, APassedDeadlineStopsTheWriteAndSaysWhere) {
  plan_.deadline = absl::Now() - absl::Seconds(1);
  absl::StatusOr<WriteFigures> w = WriteCheckpoint(dir_.string(), plan_);
  ASSERT_EQ(w.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(w.status().message().find("during the checkpoint write, 0 of 2 MiB"), std::string::npos)
      << w.status();
}

TEST_F(StorageIoTest, MetadataCountsEveryOperationInBothLayoutsAndLeavesNothing) {
  absl::StatusOr<std::vector<MetadataOp>> md =
      MeasureMetadata(dir_.string(), 250, 4, absl::InfiniteFuture());
  ASSERT_TRUE(md.ok()) << md.status();
  ASSERT_EQ(md->size(), 8u);
  EXPECT_EQ((*md)[0].op, "create");
  EXPECT_EQ((*md)[0].layout, "one directory");
  EXPECT_EQ((*md)[7].op, "unlink");
  EXPECT_EQ((*md)[7].layout, "across directories");
  for (const MetadataOp& m : *md) {
    EXPECT_EQ(m.count, 250u) << m.op;
    EXPECT_GT(m.ops_per_s, 0) << m.op;
    EXPECT_GE(m.latency.p99_ms, m.latency.p50_ms) << m.op;
  }
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST_F(StorageIoTest, AFileInTheWayIsAnErrorNamingIt) {
  fs::create_directories(dir_ / "md-one");  // as if a killed run left it
  absl::StatusOr<std::vector<MetadataOp>> md =
      MeasureMetadata(dir_.string(), 10, 1, absl::InfiniteFuture());
  ASSERT_FALSE(md.ok());
  EXPECT_NE(md.status().message().find("md-one"), std::string::npos) << md.status();
}

}  // namespace
}  // namespace nodeprobe::storage
