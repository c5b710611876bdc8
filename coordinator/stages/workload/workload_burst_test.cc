#include "coordinator/stages/workload/workload_burst.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "coordinator/stages/workload/workload_findings.h"

namespace nodeprobe::coordinator {
namespace {

using ::testing::HasSubstr;

// Steps of two ranks: `ms` for the slowest, 10% of it exposed.
std::vector<StepTimes> Steps(const std::vector<double>& ms) {
  std::vector<StepTimes> out;
  for (double m : ms) out.push_back({.step_ms = {m * 0.9, m}, .exposed_ms = {m * 0.1, m * 0.1}});
  return out;
}

v1::RunStageRequest Request(const std::string& kind, uint32_t at = 0, uint32_t steps = 0) {
  v1::RunStageRequest r;
  r.set_stage(v1::WORKLOAD);
  r.mutable_workload_burst()->set_kind(kind);
  r.mutable_workload_burst()->set_at_step(at);
  r.mutable_workload_burst()->set_steps(steps);
  return r;
}

TEST(WorkloadBurstTest, PhasesAroundTheWindowAndTheStallOnlyAboveTheBar) {
  v1::WorkloadBurst b;
  b.set_kind("east-west");
  b.set_at_step(4);
  b.set_steps(4);
  // 4 quiet steps at 100 ms, 4 at 180-200 during, 4 back at 100.
  const auto steps = Steps({100, 101, 99, 100, 180, 200, 190, 185, 100, 102, 100, 99});
  for (const auto& [bar, fires] : std::vector<std::pair<double, bool>>{{1.5, true}, {3, false}}) {
    v1::WorkloadReport report;
    google::protobuf::RepeatedPtrField<v1::Finding> findings;
    JudgeBurst(b, steps, bar, &report, &findings);
    ASSERT_EQ(report.phases_size(), 3);
    EXPECT_EQ(report.phases(0).name(), "before");
    EXPECT_EQ(report.phases(1).first_step(), 4u);
    EXPECT_EQ(report.phases(1).steps(), 4u);
    EXPECT_EQ(report.phases(2).steps(), 4u);
    EXPECT_DOUBLE_EQ(report.phases(0).step_p99_ms(), 101);
    EXPECT_DOUBLE_EQ(report.phases(1).step_p99_ms(), 200);
    EXPECT_NEAR(report.phases(1).slowdown(), 200.0 / 101, 1e-9);
    EXPECT_DOUBLE_EQ(report.phases(1).exposed_p99_ms(), 20);
    EXPECT_NEAR(report.phases(2).slowdown(), 102.0 / 101, 1e-9);
    EXPECT_EQ(report.burst().kind(), "east-west");
    EXPECT_EQ(findings.size(), fires ? 1 : 0) << bar;
    if (fires) {
      EXPECT_EQ(findings[0].code(), findings::kWorkloadBurstStalls.code);
      EXPECT_THAT(findings[0].message(),
                  HasSubstr("the east-west burst slowed the step's p99 1.98x"));
    }
  }
}

TEST(WorkloadBurstTest, TheOtherRulesJudgeOnlyTheStepsOutsideTheWindow) {
  v1::WorkloadBurst b;
  b.set_kind("storage");
  b.set_at_step(2);
  b.set_steps(3);
  const std::vector<StepTimes> quiet = QuietSteps(Steps({1, 2, 30, 40, 50, 6, 7}), b);
  ASSERT_EQ(quiet.size(), 4u);
  EXPECT_DOUBLE_EQ(quiet[2].step_ms[1], 6);
  EXPECT_EQ(QuietSteps(Steps({1, 2, 3}), v1::WorkloadBurst()).size(), 3u);
}

TEST(WorkloadBurstTest, TheWindowDefaultsToTheMiddleThirdAndMustLeaveStepsAround) {
  absl::StatusOr<Profile> p = ParseProfile("workload:\n  steps: 30\n", "w.yaml");
  ASSERT_TRUE(p.ok());
  absl::StatusOr<v1::WorkloadBurst> b = BurstOf(Request("east-west"), *p);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->at_step(), 10u);
  EXPECT_EQ(b->steps(), 10u);
  absl::StatusOr<v1::WorkloadBurst> late = BurstOf(Request("east-west", 25, 5), *p);
  ASSERT_FALSE(late.ok());
  EXPECT_THAT(late.status().message(), HasSubstr("leaves no measured step after the burst"));
  EXPECT_TRUE(BurstOf(Request(""), *p).ok());
  EXPECT_TRUE(BurstOf(Request("competing"), *p).ok());
  EXPECT_THAT(BurstOf(Request("checkpoint"), *p).status().message(),
              HasSubstr("--burst 'checkpoint' is not one of storage, east-west, competing"));
}

TEST(WorkloadBurstTest, AStorageBurstWithoutAPathNamesTheKey) {
  absl::StatusOr<Profile> none = ParseProfile("workload:\n  steps: 30\n", "w.yaml");
  ASSERT_TRUE(none.ok());
  absl::StatusOr<v1::WorkloadBurst> b = BurstOf(Request("storage"), *none);
  ASSERT_FALSE(b.ok());
  EXPECT_THAT(b.status().message(), HasSubstr("storage.paths"));
  absl::StatusOr<Profile> with =
      ParseProfile("workload:\n  steps: 30\nstorage:\n  paths: [/mnt/ckpt]\n", "w.yaml");
  ASSERT_TRUE(with.ok()) << with.status();
  absl::StatusOr<v1::WorkloadBurst> ok = BurstOf(Request("storage"), *with);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->path(), "/mnt/ckpt");
  v1::RunStageRequest other = Request("storage");
  other.set_stage(v1::CLUSTER);
  EXPECT_THAT(BurstOf(other, *with).status().message(), HasSubstr("--stage workload"));
}

}  // namespace
}  // namespace nodeprobe::coordinator
