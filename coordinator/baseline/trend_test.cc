#include "coordinator/baseline/trend.h"

#include <gtest/gtest.h>

#include "coordinator/baseline/test_runs.h"

namespace nodeprobe::baseline {
namespace {

// Six runs given newest first, one of them failed: the trend has the five
// accepted ones oldest first, and the class's baseline beside them.
TEST(TrendTest, ANodesFigureOverItsAcceptedRunsOldestFirstWithTheBaseline) {
  std::vector<v1::StageRun> runs;
  const double gbps[] = {392, 391, 393, 250, 390, 370};
  for (int day = 6; day >= 1; --day) {
    runs.push_back(TwoNodeRun(day, gbps[day - 1], day == 4 ? v1::FAIL : v1::PASS));
  }
  const v1::NodeTrend t = TrendOf(runs, "gpu01");
  EXPECT_EQ(t.node(), "gpu01");
  EXPECT_EQ(t.runs(), 5u);
  EXPECT_NE(t.node_class().find("driver=550.54.15"), std::string::npos) << t.node_class();
  ASSERT_EQ(t.figures_size(), 1);
  const v1::FigureTrend& f = t.figures(0);
  EXPECT_EQ(f.figure(), "WRITE_BW gbps rail mlx5_0");
  EXPECT_TRUE(f.higher_is_better());
  ASSERT_EQ(f.points_size(), 5);
  EXPECT_EQ(f.points(0).run_id(), "r-1");
  EXPECT_EQ(f.points(4).run_id(), "r-6");
  EXPECT_DOUBLE_EQ(f.points(4).value(), 370);
  EXPECT_EQ(f.baseline_runs(), 5u);
  EXPECT_DOUBLE_EQ(f.baseline_median(), 391);
  // gpu02 receives: no figure of its own.
  EXPECT_EQ(TrendOf(runs, "gpu02").figures_size(), 0);
  EXPECT_EQ(TrendOf(runs, "nobody").runs(), 0u);
}

// After a driver upgrade the node is in a new class: the points stay (its
// history), the baseline is the new class's.
TEST(TrendTest, AfterAnUpgradeTheBaselineIsTheNewClasss) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 5; ++day) runs.push_back(TwoNodeRun(day, 392));
  runs.push_back(TwoNodeRun(6, 350, v1::PASS, "560.35.03"));
  const v1::NodeTrend t = TrendOf(runs, "gpu01");
  EXPECT_NE(t.node_class().find("driver=560.35.03"), std::string::npos) << t.node_class();
  ASSERT_EQ(t.figures_size(), 1);
  EXPECT_EQ(t.figures(0).points_size(), 6);
  EXPECT_EQ(t.figures(0).baseline_runs(), 1u);
  EXPECT_DOUBLE_EQ(t.figures(0).baseline_median(), 350);
}

}  // namespace
}  // namespace nodeprobe::baseline

namespace nodeprobe::baseline {
namespace {

// The fleet view: one point per accepted run per class and figure, with
// the nodes' median, lowest and highest, and the class's baseline; a
// filter keeps the classes whose key holds it.
TEST(TrendTest, TheFleetViewHasAPointPerRunWithTheNodesSpread) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 3; ++day) {
    v1::StageRun r = TwoNodeRun(day, 390 + day);
    v1::PairResult* back = r.add_pairs();  // gpu02 sends too, lower
    *back = r.pairs(0);
    back->set_from_node("gpu02");
    back->set_to_node("gpu01");
    back->mutable_result()->mutable_transfer()->mutable_results(0)->set_bw_avg_gbps(380);
    runs.push_back(std::move(r));
  }
  runs.push_back(TwoNodeRun(4, 100, v1::FAIL));  // not accepted: no point
  const v1::FleetTrend t = FleetTrendOf(runs);
  ASSERT_EQ(t.classes_size(), 1);
  EXPECT_EQ(t.classes(0).runs(), 3u);
  ASSERT_EQ(t.classes(0).figures_size(), 1);
  const v1::FigureTrend& f = t.classes(0).figures(0);
  ASSERT_EQ(f.points_size(), 3);
  EXPECT_EQ(f.points(0).run_id(), "r-1");
  EXPECT_EQ(f.points(2).nodes(), 2u);
  EXPECT_DOUBLE_EQ(f.points(2).low(), 380);
  EXPECT_DOUBLE_EQ(f.points(2).high(), 393);
  EXPECT_DOUBLE_EQ(f.points(2).value(), 386.5);
  EXPECT_EQ(f.baseline_runs(), 6u);  // both nodes' figures of the three runs
  EXPECT_EQ(FleetTrendOf(runs, {}, "driver=560").classes_size(), 0);
  EXPECT_EQ(FleetTrendOf(runs, {}, "driver=550").classes_size(), 1);
}

}  // namespace
}  // namespace nodeprobe::baseline
