#include "coordinator/baseline/figures.h"

#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"

namespace nodeprobe::baseline {
namespace {

// A two-node run whose pair moved `gbps` on rail mlx5_0 (RDMA WRITE),
// both nodes of one class.
v1::StageRun TwoNode(const std::string& id, double gbps, v1::Verdict verdict,
                     const std::string& driver = "550.54.15") {
  v1::StageRun run;
  run.set_run_id(id);
  run.set_state("done");
  run.set_verdict(verdict);
  run.mutable_profile()->set_source("fleet.yaml");
  run.mutable_started()->set_seconds(1'760'000'000 + 86400 * std::stoi(id.substr(2)));
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

TEST(FiguresTest, APairsFigureBelongsToItsSenderAndRunWideOnesToEveryNode) {
  v1::StageRun run = TwoNode("r-1", 392, v1::PASS);
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
  for (int i = 1; i <= 5; ++i) runs.push_back(TwoNode(absl::StrCat("r-", i), 390 + i, v1::PASS));
  runs.push_back(TwoNode("r-6", 120, v1::FAIL));  // a failed run teaches nothing
  runs.push_back(TwoNode("r-7", 351, v1::PASS, "560.28.03"));
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

}  // namespace
}  // namespace nodeprobe::baseline
