#include "probes/shm/shm_probe.h"

#include <sys/mount.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::preflight {
namespace {

// Docker's default 64 MiB /dev/shm against 8 ranks' segments (the
// nccl-tests capture failed extending one of 5 967 872 bytes).
TEST(ShmJudgeTest, TooLittleFreeFailsWithTheFiguresAndEnoughPasses) {
  v1::ProbeResult small;
  JudgeShm(64 << 20, 60 << 20, 91 << 20, "8 local ranks x 2 channels", &small);
  ASSERT_EQ(small.findings_size(), 1);
  EXPECT_EQ(small.findings(0).code(), "SHM_TOO_SMALL");
  EXPECT_EQ(small.findings(0).severity(), v1::FAIL);
  EXPECT_NE(small.findings(0).message().find("60.0 MiB free (of 64.0 MiB)"), std::string::npos)
      << small.findings(0).message();
  EXPECT_NE(small.findings(0).remediation().find("--shm-size"), std::string::npos);
  v1::ProbeResult roomy;
  JudgeShm(16ull << 30, 16ull << 30, 91 << 20, "", &roomy);
  EXPECT_EQ(roomy.findings_size(), 0);
}

// What NCCL does with a segment, done once: created, sized and removed as
// this user, nothing left behind; a directory that cannot take one says why.
TEST(ShmUseTest, ASegmentIsMadeAndRemovedLikeNcclsOrTheReasonIsGiven) {
  testing::TempDir dir;
  EXPECT_TRUE(TrySegment(dir.path(), 6 << 20).ok());
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
  const absl::Status missing = TrySegment(dir.path() + "/nosuch", 4096);
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("cannot create a segment"), std::string::npos);
  v1::ProbeResult r;
  JudgeShmUse(missing, 100, &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "SHM_NOT_USABLE");
  v1::ProbeResult no_inodes;
  JudgeShmUse(absl::OkStatus(), 0, &no_inodes);
  ASSERT_EQ(no_inodes.findings_size(), 1);
  v1::ProbeResult fine;
  JudgeShmUse(absl::OkStatus(), 100, &fine);
  EXPECT_EQ(fine.findings_size(), 0);
}

// A read-only /dev/shm and one without inodes (tmpfs as a container runtime
// may mount it), as root: the reason is the kernel's.
TEST(ShmUseTest, AReadOnlyOrInodelessTmpfsIsNotUsable) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  testing::TempDir ro, full;
  if (mount("tmpfs", ro.path().c_str(), "tmpfs", MS_RDONLY, "size=16m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here";
  }
  const absl::Status read_only = TrySegment(ro.path(), 4096);
  umount2(ro.path().c_str(), MNT_DETACH);
  EXPECT_FALSE(read_only.ok());
  EXPECT_NE(read_only.message().find("Read-only"), std::string::npos) << read_only.message();
  ASSERT_EQ(mount("tmpfs", full.path().c_str(), "tmpfs", 0, "size=16m,nr_inodes=1"), 0);
  struct statvfs vfs;
  ASSERT_EQ(statvfs(full.path().c_str(), &vfs), 0);
  const absl::Status inodes = TrySegment(full.path(), 4096);
  umount2(full.path().c_str(), MNT_DETACH);
  v1::ProbeResult r;
  JudgeShmUse(inodes, vfs.f_favail, &r);
  ASSERT_EQ(r.findings_size(), 1) << inodes.message() << " favail " << vfs.f_favail;
  EXPECT_EQ(r.findings(0).code(), "SHM_NOT_USABLE");
}

}  // namespace
}  // namespace nodeprobe::preflight
