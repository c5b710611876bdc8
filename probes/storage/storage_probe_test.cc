// The storage probe refuses, before writing a byte, a path it cannot use:
// one that is not there, and one without room for the checkpoint and a
// tenth more (256 writers of 1 TiB on a test directory, and the metadata
// files beside them).
#include "probes/storage/storage_probe.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

v1::ProbeResult RunWith(const std::string& yaml) {
  absl::StatusOr<Profile> profile = ParseProfile(yaml, "test.yaml");
  EXPECT_TRUE(profile.ok()) << profile.status();
  StorageProbe probe;
  ProbeContext ctx;
  ctx.profile = &*profile;
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
  EXPECT_NE(r.findings(0).message().find("GiB free, the checkpoint needs 262144.1 GiB"),
            std::string::npos)
      << r.findings(0).message();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "nothing written";
  r = RunWith("storage:\n  paths: [" + dir.path() + "/not-mounted]\n");
  ASSERT_EQ(r.findings_size(), 1) << r.DebugString();
  EXPECT_NE(r.findings(0).message().find("is the filesystem mounted?"), std::string::npos)
      << r.findings(0).message();
}

}  // namespace
}  // namespace nodeprobe
