#include "coordinator/baseline/baseline_judge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "coordinator/baseline/baseline_findings.h"
#include "coordinator/baseline/test_runs.h"

namespace nodeprobe::baseline {
namespace {

using ::testing::HasSubstr;

const v1::Finding* Code(const v1::StageRun& run, const std::string& code) {
  for (const v1::Finding& f : run.findings()) {
    if (f.code() == code) return &f;
  }
  return nullptr;
}

BaselineRules On() {
  BaselineRules r;
  r.use = true;
  return r;
}

// Five accepted runs at ~392 Gb/s; the sixth measures 351, which a
// profile bar of 340 passes: a FAIL against the class, with the numbers.
TEST(BaselineJudgeTest, ATenPercentDropAgainstFiveRunsIsRegressedWithTheNumbers) {
  std::vector<v1::StageRun> history;
  for (int d = 1; d <= 5; ++d) history.push_back(TwoNodeRun(d, 390 + d % 3));
  v1::StageRun now = TwoNodeRun(6, 351);
  JudgeAgainstBaselines(&now, history, On());
  const v1::Finding* f = Code(now, findings::kRegressedFromBaseline.code);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::FAIL);
  EXPECT_EQ(f->device(), "gpu01 WRITE_BW gbps rail mlx5_0");
  EXPECT_THAT(f->message(), HasSubstr("against the class's median 391 (n 5"));
  EXPECT_THAT(f->message(), HasSubstr("this node's previous value 392 (run r-5)"));
  EXPECT_THAT(f->message(), HasSubstr("driver=550.54.15"));
  // The same value within the class's noise, or with the section off: nothing.
  v1::StageRun fine = TwoNodeRun(6, 389);
  JudgeAgainstBaselines(&fine, history, On());
  EXPECT_EQ(fine.findings_size(), 0);
  v1::StageRun off = TwoNodeRun(6, 351);
  JudgeAgainstBaselines(&off, history, BaselineRules{});
  EXPECT_EQ(off.findings_size(), 0);
}

TEST(BaselineJudgeTest, AClassWithOneRunSaysNotEnoughRunsOnceAndJudgesNothing) {
  v1::StageRun now = TwoNodeRun(2, 100);
  JudgeAgainstBaselines(&now, {TwoNodeRun(1, 392)}, On());
  ASSERT_EQ(now.findings_size(), 1);
  EXPECT_EQ(now.findings(0).code(), findings::kBaselineTooFewRuns.code);
  EXPECT_EQ(now.findings(0).severity(), v1::PASS);
  EXPECT_THAT(now.findings(0).message(), HasSubstr("not enough runs: the class has 1 accepted"));
}

// A driver upgrade: the class starts over and the record says what moved.
TEST(BaselineJudgeTest, AVersionChangeStartsANewClassAndSaysHowTheFiguresMoved) {
  std::vector<v1::StageRun> history;
  for (int d = 1; d <= 5; ++d) history.push_back(TwoNodeRun(d, 392));
  v1::StageRun now = TwoNodeRun(6, 360, v1::PASS, "560.28.03");
  JudgeAgainstBaselines(&now, history, On());
  const v1::Finding* f = Code(now, findings::kBaselineClassChanged.code);
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message(), HasSubstr("gpu01's class changed since run r-5 (driver 550.54.15 -> "
                                      "560.28.03): its baseline starts over"));
  EXPECT_THAT(f->message(), HasSubstr("WRITE_BW gbps rail mlx5_0 360 against 392 before (-8.2%)"));
  EXPECT_EQ(Code(now, findings::kRegressedFromBaseline.code), nullptr);  // a new class: not judged
}

// The ratio /metrics exports: the run's figure over its class's median,
// only once the class has the runs a baseline needs.
TEST(BaselineRatioTest, TheFigureOverItsClassMedianOnceTheClassHasTheRuns) {
  std::vector<v1::StageRun> history;
  for (int day = 1; day <= 5; ++day) history.push_back(TwoNodeRun(day, 400));
  const v1::StageRun now = TwoNodeRun(6, 320);
  const std::vector<BaselineRatio> ratios = RatiosToBaselines(now, history, 5);
  ASSERT_EQ(ratios.size(), 1u);
  EXPECT_EQ(ratios[0].node, "gpu01");
  EXPECT_EQ(ratios[0].figure, "WRITE_BW gbps rail mlx5_0");
  EXPECT_DOUBLE_EQ(ratios[0].ratio, 0.8);
  history.pop_back();
  EXPECT_TRUE(RatiosToBaselines(now, history, 5).empty());
}

}  // namespace
}  // namespace nodeprobe::baseline
