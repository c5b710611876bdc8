#include "platform/scratch_dir.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

namespace fs = std::filesystem;

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    parent_ = fs::temp_directory_path() / ("np-scratch-test-" + std::to_string(getpid()));
    fs::create_directories(parent_);
  }
  void TearDown() override { fs::remove_all(parent_); }
  bool Empty() const { return fs::is_empty(parent_); }
  fs::path parent_;
};

TEST_F(ScratchDirTest, IsMadeUnderTheParentAndGoneWhenDestroyed) {
  std::string path;
  {
    absl::StatusOr<ScratchDir> dir = ScratchDir::Create(parent_.string(), ".np-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    path = dir->path();
    EXPECT_EQ(fs::path(path).parent_path(), parent_);
    EXPECT_EQ(fs::path(path).filename().string().rfind(".np-", 0), 0u) << path;
    fs::create_directories(path + "/a/b");
    std::ofstream(path + "/a/b/shard") << "data";
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(Empty());
}

// The task worker is SIGKILLed with its whole process group at a deadline:
// the guardian, in its own session, still removes what was written.
TEST_F(ScratchDirTest, IsRemovedWhenItsOwnerIsKilledWithItsProcessGroup) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  const pid_t owner = fork();
  if (owner == 0) {
    setpgid(0, 0);
    absl::StatusOr<ScratchDir> dir = ScratchDir::Create(parent_.string(), ".np-");
    if (!dir.ok()) _exit(1);
    std::ofstream(dir->path() + "/shard") << std::string(1 << 20, 'x');
    (void)!write(fds[1], "y", 1);
    pause();
    _exit(0);
  }
  close(fds[1]);
  char c = 0;
  ASSERT_EQ(read(fds[0], &c, 1), 1) << "the owner did not make its directory";
  close(fds[0]);
  EXPECT_FALSE(Empty());
  kill(-owner, SIGKILL);
  waitpid(owner, nullptr, 0);
  const absl::Time until = absl::Now() + absl::Seconds(10);
  while (!Empty() && absl::Now() < until) absl::SleepFor(absl::Milliseconds(20));
  EXPECT_TRUE(Empty()) << "left behind under " << parent_;
}

// Both the owner and its guardian gone (a power cut): the next Create on
// this host removes what they left; a live process's and another host's
// directories are left alone.
TEST_F(ScratchDirTest, StaleDirectoriesOfGoneProcessesAreRemovedByTheNext) {
  char host[256] = {0};
  ASSERT_EQ(gethostname(host, sizeof(host) - 1), 0);
  std::string me(host);
  for (char& c : me) {
    if (c == '/' || c == '-') c = '_';
  }
  // A PID that is not a process: one past the kernel's largest.
  std::ifstream max("/proc/sys/kernel/pid_max");
  long pid_max = 0;
  max >> pid_max;
  ASSERT_GT(pid_max, 0);
  const fs::path stale = parent_ / (".np-" + me + "-" + std::to_string(pid_max + 1) + "-abc123");
  const fs::path live = parent_ / (".np-" + me + "-" + std::to_string(getpid()) + "-def456");
  const fs::path other = parent_ / (".np-otherhost-" + std::to_string(pid_max + 1) + "-ghi789");
  for (const fs::path& p : {stale, live, other}) fs::create_directories(p / "shard");
  {
    absl::StatusOr<ScratchDir> dir = ScratchDir::Create(parent_.string(), ".np-");
    ASSERT_TRUE(dir.ok()) << dir.status();
    EXPECT_NE(dir->path().find(".np-" + me + "-" + std::to_string(getpid()) + "-"),
              std::string::npos)
        << dir->path();
  }
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
}

TEST_F(ScratchDirTest, AMissingParentIsOneErrorNamingIt) {
  absl::StatusOr<ScratchDir> dir = ScratchDir::Create(parent_.string() + "/nosuch", ".np-");
  ASSERT_FALSE(dir.ok());
  EXPECT_NE(dir.status().message().find("nosuch: it does not exist"), std::string::npos)
      << dir.status();
}

}  // namespace
}  // namespace nodeprobe::platform
