// The storage probe on a real filesystem: an ext4 image on a loop device
// whose bandwidth a block-I/O cgroup limits (cgroup v2 io.max, else v1
// blkio.throttle), and `nodeprobe run --probe storage` started inside that
// cgroup. A profile bar below the limit passes and one above it fails;
// metadata runs over 10 000 files; and nothing is left on the filesystem,
// also when nodeprobe is killed mid-write or stopped by its deadline.
// Needs root, losetup and mkfs.ext4; skips naming what is missing.
#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/lab/throttled_fs.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using lab::ThrottledFs;

namespace fs = std::filesystem;

class StorageLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status available = ThrottledFs::Available();
    if (!available.ok()) GTEST_SKIP() << available.message();
    fs_ = std::make_unique<ThrottledFs>(dir_.path());
    ASSERT_TRUE(fs_->status().ok()) << fs_->status();
    mnt_ = fs_->mount();
    loop_ = fs_->loop_device();
    cgroup_ = fs_->cgroup();
  }
  void Throttle(uint64_t write_bps, uint64_t read_bps) { fs_->Throttle(write_bps, read_bps); }

  std::string Profile(const std::string& extra) {
    const std::string path = dir_.path() + "/profile.yaml";
    testing::WriteFile(path, absl::StrCat("storage:\n  paths: [", mnt_, "]\n", extra));
    return path;
  }

  // nodeprobe run --probe storage, inside the cgroup, as argv for /bin/sh.
  std::vector<std::string> Command(const std::string& profile, const std::string& timeout) {
    return {"-c",
            absl::StrCat("echo $$ > ", cgroup_, "/cgroup.procs && exec \"$0\" \"$@\""),
            NODEPROBE_BINARY,
            "run",
            "--stage",
            "single-node",
            "--probe",
            "storage",
            "--profile",
            profile,
            "--format",
            "json",
            "--force",
            "--timeout",
            timeout};
  }

  v1::ProbeResult Run(const std::string& profile, int* exit_code, std::string* err) {
    testing::CommandResult r = testing::RunBinary("/bin/sh", Command(profile, "300"));
    *exit_code = r.exit_code;
    *err = r.err;
    v1::StageReport report;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out << r.err;
    return report.results_size() == 1 ? report.results(0) : v1::ProbeResult();
  }

  std::vector<std::string> LeftBehind() const { return fs_->LeftBehind(); }

  bool WaitUntilClean(absl::Duration timeout) const {
    const absl::Time until = absl::Now() + timeout;
    while (!LeftBehind().empty() && absl::Now() < until) absl::SleepFor(absl::Milliseconds(50));
    return LeftBehind().empty();
  }

  testing::TempDir dir_;
  std::unique_ptr<ThrottledFs> fs_;
  std::string mnt_, loop_, cgroup_;
};

constexpr uint64_t kMiB = 1 << 20;

// Writes limited to 16 MiB/s (0.134 Gb/s) and reads to 32 MiB/s (0.268
// Gb/s): bars at about half pass, bars at twice fail, and the figures are
// the limits within what a block throttle's accounting allows.
TEST_F(StorageLabTest, ABarBelowTheDevicesLimitPassesAndOneAboveItFails) {
  Throttle(16 * kMiB, 32 * kMiB);
  const std::string shape = "  writers: 2\n  shard_mb: 8\n  metadata_files: 200\n";
  int rc = -1;
  std::string err;
  v1::ProbeResult r = Run(Profile(shape + "  checkpoint_write_min_gbps: 0.07\n"
                                          "  read_min_gbps: 0.13\n"),
                          &rc, &err);
  EXPECT_EQ(rc, 0) << err;
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  ASSERT_EQ(r.storage().paths_size(), 1);
  const v1::StoragePath& p = r.storage().paths(0);
  EXPECT_EQ(p.filesystem(), "ext4");
  EXPECT_EQ(p.source(), loop_);
  EXPECT_EQ(p.io_mode(), "O_DIRECT");
  EXPECT_GT(p.write_gbps(), 0.10) << "16 MiB/s is 0.134 Gb/s";
  EXPECT_LT(p.write_gbps(), 0.17);
  EXPECT_GT(p.read_seq_gbps(), 0.20) << "32 MiB/s is 0.268 Gb/s";
  EXPECT_LT(p.read_seq_gbps(), 0.34);
  EXPECT_GT(p.checkpoint_s(), 0.8) << "16 MiB at 16 MiB/s";
  EXPECT_EQ(p.metadata_size(), 8);
  EXPECT_TRUE(LeftBehind().empty());

  r = Run(Profile(shape + "  checkpoint_write_min_gbps: 0.3\n  read_min_gbps: 0.6\n"), &rc, &err);
  EXPECT_EQ(rc, 1) << err;
  EXPECT_EQ(r.verdict(), v1::FAIL);
  std::vector<std::string> codes;
  for (const v1::Finding& f : r.findings()) codes.push_back(f.code());
  EXPECT_EQ(codes, (std::vector<std::string>{"STORAGE_WRITE_SLOW", "STORAGE_READ_SLOW",
                                             "STORAGE_READ_SLOW"}));
  EXPECT_TRUE(LeftBehind().empty());
}

TEST_F(StorageLabTest, MetadataOverTenThousandFilesIsCountedAndCleanedUp) {
  int rc = -1;
  std::string err;
  v1::ProbeResult r = Run(Profile("  writers: 2\n  shard_mb: 1\n  metadata_files: 10000\n"
                                  "  metadata_p99_max_ms: 1000\n"),
                          &rc, &err);
  EXPECT_EQ(rc, 0) << err;
  ASSERT_EQ(r.storage().paths_size(), 1);
  ASSERT_EQ(r.storage().paths(0).metadata_size(), 8);
  for (const v1::StorageMetadataOp& m : r.storage().paths(0).metadata()) {
    EXPECT_EQ(m.count(), 10000u) << m.op() << " " << m.layout();
    EXPECT_GT(m.ops_per_s(), 0);
  }
  EXPECT_TRUE(LeftBehind().empty());
}

// SIGKILL to nodeprobe mid-write (its task worker dies with it): the
// scratch directory's guardian removes what was written.
TEST_F(StorageLabTest, NothingIsLeftWhenNodeprobeIsKilledMidWrite) {
  Throttle(4 * kMiB, 4 * kMiB);  // 2 x 64 MiB: half a minute of writing
  const std::string profile = Profile("  writers: 2\n  shard_mb: 64\n  metadata_files: 0\n");
  std::vector<std::string> args = Command(profile, "300");
  std::vector<char*> argv = {const_cast<char*>("/bin/sh")};
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const int devnull = open("/dev/null", O_RDWR);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(devnull, 1);
    execv("/bin/sh", argv.data());
    _exit(127);
  }
  close(devnull);
  // Until a shard has bytes in it.
  bool writing = false;
  for (int i = 0; i < 300 && !writing; ++i) {
    absl::SleepFor(absl::Milliseconds(50));
    for (const std::string& d : LeftBehind()) {
      for (const auto& e : fs::directory_iterator(d)) {
        if (e.path().filename().string().rfind("shard-", 0) == 0 && fs::file_size(e) > 0) {
          writing = true;
        }
      }
    }
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  ASSERT_TRUE(writing) << "no shard was being written within 15 s";
  EXPECT_TRUE(WaitUntilClean(absl::Seconds(15))) << LeftBehind()[0];
}

// The stage's deadline comes mid-write: the run says so (exit 3: the
// probe stopped itself, or its worker was killed) and leaves nothing.
TEST_F(StorageLabTest, NothingIsLeftWhenTheDeadlineComesMidWrite) {
  Throttle(4 * kMiB, 4 * kMiB);
  const std::string profile = Profile("  writers: 2\n  shard_mb: 64\n  metadata_files: 0\n");
  testing::CommandResult r = testing::RunBinary("/bin/sh", Command(profile, "3"));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_TRUE(r.out.find("STORAGE_NOT_MEASURED") != std::string::npos ||
              r.out.find("TASK_TIMEOUT") != std::string::npos)
      << r.out;
  EXPECT_TRUE(WaitUntilClean(absl::Seconds(15))) << LeftBehind()[0];
}

}  // namespace
}  // namespace nodeprobe
