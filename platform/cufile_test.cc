#include "platform/cufile.h"

#include <filesystem>

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

TEST(CuFileTest, TheModeFollowsTheNvidiaFsDriver) {
  testing::TempDir proc;
  EXPECT_EQ(CuFileMode(proc.path()).rfind("compatibility mode", 0), 0u);
  std::filesystem::create_directories(proc.path() + "/driver/nvidia-fs");
  EXPECT_EQ(CuFileMode(proc.path()).rfind("GDS (nvidia-fs loaded", 0), 0u);
}

// This machine has neither libcufile nor a GPU: one clear reason, no crash.
TEST(CuFileTest, WithoutLibcufileOrAGpuTheReadSaysWhatIsMissing) {
  absl::StatusOr<CuFileRead> r =
      ReadWithCuFile("/etc/hostname", 0, 1 << 20, "/proc", absl::InfiniteFuture());
  if (r.ok()) GTEST_SKIP() << "cuFile works here: the hwtests measure it";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kFailedPrecondition) << r.status();
  EXPECT_FALSE(r.status().message().empty());
}

}  // namespace
}  // namespace nodeprobe::platform
