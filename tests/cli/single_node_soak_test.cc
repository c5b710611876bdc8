// `run --stage single-node --soak` on this node, with the one intrusive
// bandwidth probe that measures here: storage, on a test directory, with
// a checkpoint small enough for many rounds. Each figure becomes a series
// in a `soak` result, the error counters over the window (NVLink through
// NVML's test double) a `soak-counters` one, the kernel log over the window
// (--kmsg: a file here) a `soak-kernel-events` one, FAIL with a captured
// Xid 48 in it; a pre-flight takes no --soak.
#include <google/protobuf/util/json_util.h>

#include <cstdlib>
#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

// `run --stage single-node --probe storage --soak SOAK` on `dir` with a
// storage section of `storage` (YAML keys), wide soak bars, and `kmsg` as
// the kernel log it watches.
testing::CommandResult Soak(const testing::TempDir& dir, const std::string& storage,
                            const std::string& kmsg, const std::string& soak) {
  const std::string profile = dir.path() + "/storage.yaml";
  testing::WriteFile(profile, "storage:\n  paths: [" + dir.path() + "]\n" + storage +
                                  "soak:\n  max_spread: 0.99\n  max_drift: 0.99\n");
  testing::WriteFile(dir.path() + "/kmsg", kmsg);
  return testing::RunBinary(NODEPROBE_BINARY,
                            {"run", "--stage", "single-node", "--probe", "storage", "--force",
                             "--soak", soak, "--profile", profile, "--format", "json", "--kmsg",
                             dir.path() + "/kmsg"});
}

TEST(SingleNodeSoakTest, StoragesFiguresBecomeSeriesJudgedOverTime) {
  testing::TempDir dir;
  const std::string profile = dir.path() + "/storage.yaml";
  const std::string kmsg = dir.path() + "/kmsg";
  // NVML's test double: one GPU whose 18 NVLinks have error counters, so the
  // soak's own window of counters is read (and, unchanged, passes).
  setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  setenv("FAKE_NVML_GPUS", "name=NVIDIA H100,bus=0000:19:00.0,nvlink=18/18,nvlink_errors=1/0/2/0",
         1);
  testing::CommandResult r =
      Soak(dir, "  shard_mb: 4\n  writers: 2\n  metadata_files: 20\n", "", "4s");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  v1::StageReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out;
  unsetenv("NODEPROBE_NVML_LIBRARY");
  unsetenv("FAKE_NVML_GPUS");
  ASSERT_EQ(report.results_size(), 4) << r.out;
  const v1::ProbeResult& soak = report.results(1);
  const v1::ProbeResult& counters = report.results(2);
  EXPECT_EQ(report.results(3).probe(), "soak-kernel-events");
  EXPECT_EQ(report.results(3).verdict(), v1::PASS) << report.results(3).DebugString();
  EXPECT_EQ(counters.probe(), "soak-counters");
  EXPECT_EQ(counters.verdict(), v1::PASS) << counters.DebugString();
  EXPECT_TRUE(absl::StrContains(counters.evidence().at("fault-counters.window"), "growth since"))
      << counters.DebugString();
  EXPECT_EQ(soak.probe(), "soak");
  // Judged (a tiny checkpoint on a shared disk is noisy: the bars are wide).
  EXPECT_TRUE(soak.verdict() == v1::PASS || soak.verdict() == v1::WARN) << soak.DebugString();
  int series = 0;
  for (const auto& [key, value] : soak.evidence()) {
    if (!absl::StartsWith(key, "soak.storage storage.")) continue;
    ++series;
    EXPECT_TRUE(absl::StrContains(value, "Gb/s, spread")) << value;
    EXPECT_TRUE(absl::StrContains(value, "@0s ")) << "the first round at 0 s: " << value;
  }
  EXPECT_EQ(series, 3) << "write, sequential and random read\n" << soak.DebugString();
  int rounds = 0;
  EXPECT_TRUE(absl::SimpleAtoi(
      soak.evidence().at("soak").substr(0, soak.evidence().at("soak").find(' ')), &rounds));
  EXPECT_GE(rounds, 3) << soak.evidence().at("soak");
  // Nothing left behind by the rounds.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path()))
    entries += e.path() != profile && e.path() != kmsg;
  EXPECT_EQ(entries, 0);
  // A pre-flight is one look: no --soak.
  r = testing::RunBinary(NODEPROBE_BINARY, {"run", "--stage", "preflight", "--soak", "4s"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  // --kmsg is the soak's: alone it would be silently unused.
  r = testing::RunBinary(NODEPROBE_BINARY, {"run", "--stage", "single-node", "--kmsg", kmsg});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "add --soak")) << r.err;
}

// A --kmsg path that is not there is said as such: no privilege hint that
// would send the operator after CAP_SYSLOG.
TEST(SingleNodeSoakTest, AMissingKernelLogIsNotAPrivilegeProblem) {
  testing::TempDir dir;
  const std::string profile = dir.path() + "/storage.yaml";
  testing::WriteFile(profile, "storage:\n  paths: [" + dir.path() +
                                  "]\n  shard_mb: 1\n  writers: 1\n  metadata_files: 0\n");
  testing::CommandResult r = testing::RunBinary(
      NODEPROBE_BINARY, {"run", "--stage", "single-node", "--probe", "storage", "--force", "--soak",
                         "1s", "--profile", profile, "--format", "json", "--kmsg",
                         dir.path() + "/no-such-log"});
  v1::StageReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out << r.err;
  const v1::ProbeResult* events = nullptr;
  for (const v1::ProbeResult& p : report.results()) {
    if (p.probe() == "soak-kernel-events") events = &p;
  }
  ASSERT_NE(events, nullptr) << r.out;
  EXPECT_EQ(events->verdict(), v1::SKIP);
  EXPECT_TRUE(absl::StrContains(events->reason(), "No such file")) << events->reason();
  EXPECT_FALSE(absl::StrContains(events->reason(), "CAP_SYSLOG")) << events->reason();
}

// An Xid 48 (double-bit ECC error) during the soak: its window's result is
// FAIL with the GPU named, and so is the run.
TEST(SingleNodeSoakTest, AnXidInTheWindowFailsTheSoak) {
  testing::TempDir dir;
  testing::CommandResult r =
      Soak(dir, "  shard_mb: 2\n  writers: 1\n  metadata_files: 0\n",
           testing::ReadFixture("xid/issue-gpuoperator1146-xid48-dbe-xid64-syslog.txt"), "2s");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  v1::StageReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out;
  const v1::ProbeResult& events = report.results(report.results_size() - 1);
  ASSERT_EQ(events.probe(), "soak-kernel-events") << r.out;
  EXPECT_EQ(events.verdict(), v1::FAIL) << events.DebugString();
  bool xid48 = false;
  for (const v1::Finding& f : events.findings()) {
    xid48 |= f.code() == "GPU_XID" && absl::StrContains(f.device(), "0000:07:00");
  }
  EXPECT_TRUE(xid48) << events.DebugString();
}

}  // namespace
}  // namespace nodeprobe
