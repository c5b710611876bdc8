#include "coordinator/baseline/baseline_judge.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "coordinator/baseline/baseline_findings.h"

namespace nodeprobe::baseline {
namespace {

using ::testing::HasSubstr;

v1::StageRun TwoNode(int day, double gbps, const std::string& driver = "550.54.15") {
  v1::StageRun run;
  run.set_run_id(absl::StrCat("r-", day));
  run.set_state("done");
  run.set_verdict(v1::PASS);
  run.mutable_profile()->set_source("fleet.yaml");
  run.mutable_started()->set_seconds(1'760'000'000 + 86400 * day);
  for (const char* n : {"gpu01", "gpu02"}) {
    run.add_nodes(n);
    v1::StageReport* r = run.add_node_reports();
    r->set_node(n);
    v1::Component* c = r->add_results()->mutable_inventory()->add_components();
    c->set_name("nvidia_driver");
    c->set_present(true);
    c->set_version(driver);
  }
  v1::PairResult* p = run.add_pairs();
  p->set_from_node("gpu01");
  p->set_to_node("gpu02");
  p->set_rail("mlx5_0");
  p->mutable_result()->mutable_transfer()->set_op(v1::WRITE_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(gbps);
  return run;
}

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
  for (int d = 1; d <= 5; ++d) history.push_back(TwoNode(d, 390 + d % 3));
  v1::StageRun now = TwoNode(6, 351);
  JudgeAgainstBaselines(&now, history, On());
  const v1::Finding* f = Code(now, findings::kRegressedFromBaseline.code);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity(), v1::FAIL);
  EXPECT_EQ(f->device(), "gpu01 WRITE_BW gbps rail mlx5_0");
  EXPECT_THAT(f->message(), HasSubstr("against the class's median 391 (n 5"));
  EXPECT_THAT(f->message(), HasSubstr("this node's previous value 392 (run r-5)"));
  EXPECT_THAT(f->message(), HasSubstr("driver=550.54.15"));
  // The same value within the class's noise, or with the section off: nothing.
  v1::StageRun fine = TwoNode(6, 389);
  JudgeAgainstBaselines(&fine, history, On());
  EXPECT_EQ(fine.findings_size(), 0);
  v1::StageRun off = TwoNode(6, 351);
  JudgeAgainstBaselines(&off, history, BaselineRules{});
  EXPECT_EQ(off.findings_size(), 0);
}

TEST(BaselineJudgeTest, AClassWithOneRunSaysNotEnoughRunsOnceAndJudgesNothing) {
  v1::StageRun now = TwoNode(2, 100);
  JudgeAgainstBaselines(&now, {TwoNode(1, 392)}, On());
  ASSERT_EQ(now.findings_size(), 1);
  EXPECT_EQ(now.findings(0).code(), findings::kBaselineTooFewRuns.code);
  EXPECT_EQ(now.findings(0).severity(), v1::PASS);
  EXPECT_THAT(now.findings(0).message(), HasSubstr("not enough runs: the class has 1 accepted"));
}

// A driver upgrade: the class starts over and the record says what moved.
TEST(BaselineJudgeTest, AVersionChangeStartsANewClassAndSaysHowTheFiguresMoved) {
  std::vector<v1::StageRun> history;
  for (int d = 1; d <= 5; ++d) history.push_back(TwoNode(d, 392));
  v1::StageRun now = TwoNode(6, 360, "560.28.03");
  JudgeAgainstBaselines(&now, history, On());
  const v1::Finding* f = Code(now, findings::kBaselineClassChanged.code);
  ASSERT_NE(f, nullptr);
  EXPECT_THAT(f->message(), HasSubstr("gpu01's class changed since run r-5 (driver 550.54.15 -> "
                                      "560.28.03): its baseline starts over"));
  EXPECT_THAT(f->message(), HasSubstr("WRITE_BW gbps rail mlx5_0 360 against 392 before (-8.2%)"));
  EXPECT_EQ(Code(now, findings::kRegressedFromBaseline.code), nullptr);  // a new class: not judged
}

}  // namespace
}  // namespace nodeprobe::baseline
