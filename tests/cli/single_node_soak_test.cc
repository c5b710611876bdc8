// `run --stage single-node --soak` on this node, with the one intrusive
// bandwidth probe that measures here: storage, on a test directory, with
// a checkpoint small enough for many rounds. Each figure becomes a series
// in a `soak` result; a pre-flight takes no --soak.
#include <google/protobuf/util/json_util.h>

#include <filesystem>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

TEST(SingleNodeSoakTest, StoragesFiguresBecomeSeriesJudgedOverTime) {
  testing::TempDir dir;
  const std::string profile = dir.path() + "/storage.yaml";
  testing::WriteFile(profile, "storage:\n  paths: [" + dir.path() +
                                  "]\n  shard_mb: 4\n  writers: 2\n  metadata_files: 20\n"
                                  "soak:\n  max_spread: 0.99\n  max_drift: 0.99\n");
  testing::CommandResult r = testing::RunBinary(
      NODEPROBE_BINARY, {"run", "--stage", "single-node", "--probe", "storage", "--force", "--soak",
                         "4s", "--profile", profile, "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  v1::StageReport report;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &report).ok()) << r.out;
  ASSERT_EQ(report.results_size(), 2) << r.out;
  const v1::ProbeResult& soak = report.results(1);
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
    entries += e.path() != profile;
  EXPECT_EQ(entries, 0);
  // A pre-flight is one look: no --soak.
  r = testing::RunBinary(NODEPROBE_BINARY, {"run", "--stage", "preflight", "--soak", "4s"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
}

}  // namespace
}  // namespace nodeprobe
