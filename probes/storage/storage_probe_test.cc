// The storage probe refuses, before writing a byte, a path it cannot use:
// one that is not there, and one without room for the checkpoint and a
// tenth more (256 writers of 1 TiB on a test directory, and the metadata
// files beside them).
#include "probes/storage/storage_probe.h"

#include <sys/mount.h>
#include <unistd.h>
#include <filesystem>

#include "gtest/gtest.h"
#include "probes/framework/result_util.h"
#include "probes/framework/profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

v1::ProbeResult RunWith(const std::string& yaml, int writers_nodes = 1) {
  absl::StatusOr<Profile> profile = ParseProfile(yaml, "test.yaml");
  EXPECT_TRUE(profile.ok()) << profile.status();
  StorageProbe probe;
  ProbeContext ctx;
  ctx.profile = &*profile;
  ctx.arguments.Set(storage::kWritersNodes, std::to_string(writers_nodes));
  absl::StatusOr<v1::ProbeResult> r = probe.Run(ctx);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : v1::ProbeResult();
}

TEST(StorageProbeTest, APathWithoutRoomOrThatIsNotThereIsRefusedBeforeWriting) {
  testing::TempDir dir;
  v1::ProbeResult r =
      RunWith("storage:\n  paths: [" + dir.path() + "]\n  shard_mb: 1048576\n  writers: 256\n");
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "STORAGE_PATH_UNUSABLE");
  EXPECT_NE(r.findings(0).message().find(" free, the checkpoint needs 256.0 TiB"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "nothing written";
  r = RunWith("storage:\n  paths: [" + dir.path() + "/not-mounted]\n");
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_NE(r.findings(0).message().find("is the filesystem mounted?"), std::string::npos)
      << r.findings(0).message();
}

// The metadata test's files against the free inodes: a tmpfs with few
// inodes is refused before anything is created (as root, which CI is).
TEST(StorageProbeTest, APathWithoutInodesForTheMetadataTestIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  testing::TempDir dir;
  if (mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64m,nr_inodes=50") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  const v1::ProbeResult r = RunWith("storage:\n  paths: [" + dir.path() +
                                    "]\n  shard_mb: 1\n  writers: 1\n  metadata_files: 1000\n");
  const bool empty = std::filesystem::is_empty(dir.path());
  umount2(dir.path().c_str(), MNT_DETACH);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_EQ(r.findings(0).code(), "STORAGE_PATH_UNUSABLE");
  EXPECT_NE(r.findings(0).message().find("free inodes, the test creates 1009 files"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_TRUE(empty) << "nothing created";
}

// The storm on a shared filesystem: ten nodes' 8 MiB checkpoints do not
// fit a 64 MiB filesystem although one does; refused before writing.
TEST(StorageProbeTest, AStormChecksRoomForEveryNodeSharingTheFilesystem) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  testing::TempDir dir;
  if (mount("tmpfs", dir.path().c_str(), "tmpfs", 0, "size=64m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  const v1::ProbeResult r = RunWith("storage:\n  paths: [" + dir.path() +
                                        "]\n  shard_mb: 8\n  writers: 1\n  metadata_files: 0\n",
                                    10);
  const bool empty = std::filesystem::is_empty(dir.path());
  umount2(dir.path().c_str(), MNT_DETACH);
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_NE(r.findings(0).message().find("the checkpoint needs 80.0 MiB"), std::string::npos)
      << r.findings(0).message();
  EXPECT_NE(r.findings(0).message().find("10 nodes write this shared filesystem at once"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_TRUE(empty);
}

TEST(ByteSizeTest, SizesAreInTheUnitThatShowsThem) {
  EXPECT_EQ(ByteSize(512), "512 B");
  EXPECT_EQ(ByteSize(64 << 10), "64 KiB");
  EXPECT_EQ(ByteSize(8 << 20), "8.0 MiB");
  EXPECT_EQ(ByteSize(3ull << 30), "3.0 GiB");
  EXPECT_EQ(ByteSize(3ull << 40), "3.0 TiB");
}

}  // namespace
}  // namespace nodeprobe
