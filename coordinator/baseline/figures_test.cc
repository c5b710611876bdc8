#include "coordinator/baseline/figures.h"

#include <gtest/gtest.h>

#include "coordinator/baseline/test_runs.h"

namespace nodeprobe::baseline {
namespace {

TEST(FiguresTest, APairsFigureBelongsToItsSenderAndRunWideOnesToEveryNode) {
  v1::StageRun run = TwoNodeRun(1, 392);
  run.mutable_workload()->set_steps(20);
  run.mutable_workload()->set_shape("llama2-7b-dp");
  run.mutable_workload()->set_step_p50_ms(310);
  const std::vector<Figure> f = FiguresOf(run);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].node, "gpu01");
  EXPECT_EQ(f[0].name, "WRITE_BW gbps rail mlx5_0");
  EXPECT_DOUBLE_EQ(f[0].value, 392);
  EXPECT_EQ(f[1].name, "workload llama2-7b-dp step p50 ms");
  EXPECT_FALSE(f[1].higher_is_better);
  EXPECT_EQ(f[2].node, "gpu02");
}

TEST(FiguresTest, OnlyAcceptedRunsBuildTheBaselineAndAVersionChangeIsAnotherClass) {
  std::vector<v1::StageRun> runs;
  for (int i = 1; i <= 5; ++i) runs.push_back(TwoNodeRun(i, 390 + i));
  runs.push_back(TwoNodeRun(6, 120, v1::FAIL));  // a failed run teaches nothing
  runs.push_back(TwoNodeRun(7, 351, v1::PASS, "560.28.03"));
  const auto classes = BaselinesOf(runs);
  ASSERT_EQ(classes.size(), 2u);
  for (const auto& [key, c] : classes) {
    const Baseline& b = c.figures.at("WRITE_BW gbps rail mlx5_0");
    if (key.find("550.54.15") != std::string::npos) {
      EXPECT_EQ(b.n, 5u);
      EXPECT_DOUBLE_EQ(b.median, 393);
      EXPECT_EQ(b.last - b.first, 4 * 86400);
    } else {
      EXPECT_EQ(b.n, 1u);  // the new driver's class starts over
      EXPECT_EQ(Judge(300, b, RegressionRules{}, true).state, Regression::kNotEnoughRuns);
    }
  }
}

TEST(FiguresTest, AForgottenRunCountsNowhereAndAPinnedClassStopsAtItsRun) {
  std::vector<v1::StageRun> runs;
  for (int i = 1; i <= 6; ++i) runs.push_back(TwoNodeRun(i, 390 + i));
  runs.push_back(TwoNodeRun(7, 300));  // after the pin: it does not move the baseline
  const std::string key = *ClassKeysOf(runs[0]).begin();
  ASSERT_EQ(ClassKeysOf(runs[0]).size(), 1u);  // both nodes, one class
  v1::BaselineMarks m;
  m.add_forgotten()->set_run_id("r-2");
  v1::BaselinePin* pin = m.add_pins();
  pin->set_class_key(key);
  pin->set_run_id("r-6");
  pin->set_until_seconds(runs[5].started().seconds());
  const Marks marks = MarksOf(m);
  EXPECT_FALSE(marks.Counts(runs[1], key));
  EXPECT_TRUE(marks.Counts(runs[5], key));
  EXPECT_FALSE(marks.Counts(runs[6], key));
  EXPECT_TRUE(marks.Counts(runs[6], "another class"));
  const Baseline b = BaselinesOf(runs, marks).at(key).figures.at("WRITE_BW gbps rail mlx5_0");
  EXPECT_EQ(b.n, 5u);  // days 1 and 3 to 6: day 2 forgotten, day 7 after the pin
  EXPECT_DOUBLE_EQ(b.median, 394);
  // Unmarked, every accepted run counts.
  EXPECT_EQ(BaselinesOf(runs).at(key).figures.at("WRITE_BW gbps rail mlx5_0").n, 7u);
}

}  // namespace
}  // namespace nodeprobe::baseline
