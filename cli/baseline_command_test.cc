#include "cli/baseline_command.h"

#include <gtest/gtest.h>

#include "cli/html_report.h"
#include "coordinator/baseline/test_runs.h"
#include "coordinator/baseline/trend.h"

namespace nodeprobe::cli {
namespace {

TEST(BaselineTableTest, EachClassThenItsFiguresAndTooFewRunsSaysSo) {
  std::map<std::string, baseline::ClassBaselines> classes;
  baseline::ClassBaselines& h200 = classes["gpu=NVIDIA H200; driver=550.54.15"];
  h200.figures["WRITE_BW gbps rail mlx5_0"] = {
      .median = 392, .spread = 1.48, .n = 6, .first = 1'764'979'200, .last = 1'765'411'200};
  h200.figures["all_reduce busbw 1073741824 B"] = {.median = 350, .spread = 9, .n = 2};
  classes["gpu=none; driver=none"].figures["STREAM_BW gbps rail eth0"] = {.median = 90, .n = 5};
  const std::string all = RenderBaselines(classes, "", 5);
  EXPECT_NE(all.find("class gpu=NVIDIA H200; driver=550.54.15\n"), std::string::npos) << all;
  EXPECT_NE(all.find("WRITE_BW gbps rail mlx5_0"), std::string::npos);
  EXPECT_NE(all.find("median 392, spread 1.48, n 6, 2025-12-06 .. 2025-12-11"), std::string::npos)
      << all;
  EXPECT_NE(all.find("all_reduce busbw 1073741824 B"), std::string::npos);
  EXPECT_NE(all.find("not enough runs (n 2 of 5)"), std::string::npos) << all;
  const std::string h200_only = RenderBaselines(classes, "H200", 5);
  EXPECT_EQ(h200_only.find("gpu=none"), std::string::npos);
  EXPECT_EQ(RenderBaselines(classes, "B200", 5), "no accepted run matches\n");
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// The trend as text: each run's value and its ratio to the class median;
// a node with no figure says so.
TEST(TrendRenderTest, EachRunAgainstTheClassMedian) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 5; ++day)
    runs.push_back(baseline::TwoNodeRun(day, day == 5 ? 351 : 390));
  const std::string text = RenderTrend(baseline::TrendOf(runs, "gpu01"));
  EXPECT_NE(text.find("gpu01: 5 accepted runs, class gpu=none"), std::string::npos) << text;
  EXPECT_NE(text.find("WRITE_BW gbps rail mlx5_0 (class median 390, spread 0, n 5)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("r-5                             351  0.900 of the median"),
            std::string::npos)
      << text;
  EXPECT_NE(RenderTrend(baseline::TrendOf(runs, "gpu02")).find("no figure of this node"),
            std::string::npos);
  const std::string html = HtmlTrend(baseline::TrendOf(runs, "gpu01"));
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("0.900"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// `baseline show --format json`: each class with its parts and figures,
// and whether a figure has the runs to be judged against.
TEST(BaselineJsonTest, ClassesWithTheirPartsAndFigures) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 4; ++day) runs.push_back(baseline::TwoNodeRun(day, 390 + day));
  const v1::ClassBaselines m = BaselinesMessage(baseline::BaselinesOf(runs), "", 4);
  ASSERT_EQ(m.classes_size(), 1);
  const v1::ClassBaselines::Class& c = m.classes(0);
  EXPECT_NE(c.key().find("driver=550.54.15"), std::string::npos) << c.key();
  ASSERT_GE(c.parts_size(), 3);
  EXPECT_EQ(c.parts(0).name(), "gpu");
  ASSERT_EQ(c.figures_size(), 1);
  EXPECT_EQ(c.figures(0).figure(), "WRITE_BW gbps rail mlx5_0");
  EXPECT_TRUE(c.figures(0).higher_is_better());
  EXPECT_EQ(c.figures(0).runs(), 4u);
  EXPECT_DOUBLE_EQ(c.figures(0).median(), 392.5);
  EXPECT_TRUE(c.figures(0).enough_runs());
  EXPECT_FALSE(
      BaselinesMessage(baseline::BaselinesOf(runs), "", 5).classes(0).figures(0).enough_runs());
  EXPECT_EQ(BaselinesMessage(baseline::BaselinesOf(runs), "B200", 4).classes_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// A pinned class says so in the table and the JSON, with its run and who
// pinned it; forgotten runs are listed in the JSON.
TEST(BaselineJsonTest, APinnedClassAndForgottenRunsAreShown) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 4; ++day) runs.push_back(baseline::TwoNodeRun(day, 390 + day));
  const std::string key = *baseline::ClassKeysOf(runs[0]).begin();
  v1::BaselineMarks marks;
  v1::BaselinePin* pin = marks.add_pins();
  pin->set_class_key(key);
  pin->set_run_id("r-3");
  pin->set_until_seconds(runs[2].started().seconds());
  pin->set_by("alice");
  marks.add_forgotten()->set_run_id("r-1");
  const baseline::Marks indexed = baseline::MarksOf(marks);
  const auto classes = baseline::BaselinesOf(runs, indexed);
  const std::string table = RenderBaselines(classes, "", 2, indexed);
  EXPECT_NE(table.find("pinned at run r-3 (runs up to 2025-10-12) by alice"), std::string::npos)
      << table;
  EXPECT_NE(table.find("n 2,"), std::string::npos) << table;  // days 2 and 3
  const v1::ClassBaselines m = BaselinesMessage(classes, "", 2, indexed);
  ASSERT_EQ(m.classes_size(), 1);
  EXPECT_EQ(m.classes(0).pinned_run(), "r-3");
  EXPECT_EQ(m.classes(0).pinned_by(), "alice");
  ASSERT_EQ(m.forgotten_runs_size(), 1);
  EXPECT_EQ(m.forgotten_runs(0), "r-1");
  // A pinned class without a figure is still listed.
  const std::string bare = RenderBaselines({}, "", 2, indexed);
  EXPECT_NE(
      bare.find("pinned at run r-3 (runs up to 2025-10-12) by alice\n  no figure measured yet"),
      std::string::npos)
      << bare;
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// The fleet trend as text and HTML: per class and figure, each run's
// nodes' median, lowest and highest; nothing measured says so.
TEST(TrendRenderTest, TheFleetTrendPerClassAndRun) {
  std::vector<v1::StageRun> runs;
  for (int day = 1; day <= 5; ++day)
    runs.push_back(baseline::TwoNodeRun(day, day == 5 ? 351 : 390));
  const v1::FleetTrend t = baseline::FleetTrendOf(runs);
  const std::string text = RenderFleetTrend(t);
  EXPECT_NE(text.find("class gpu=none"), std::string::npos) << text;
  EXPECT_NE(text.find(": 5 accepted runs"), std::string::npos) << text;
  EXPECT_NE(text.find("r-5                        1 nodes  median 351"), std::string::npos) << text;
  EXPECT_NE(text.find("0.900 of the median"), std::string::npos) << text;
  EXPECT_EQ(RenderFleetTrend(v1::FleetTrend()), "no accepted run measured a figure\n");
  const std::string html = HtmlFleetTrend(t);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("lowest node"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::cli
