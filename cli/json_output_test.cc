// File: json_output_test.cc
// RunToJson prints a run a node report at a time; what it prints must be
// ToJson's text exactly, byte for byte, or run.json in a bundle would
// differ from `report --format json`.
#include "cli/json_output.h"

#include "gtest/gtest.h"

namespace nodeprobe::cli {
namespace {

v1::StageRun RunOf(int reports) {
  v1::StageRun run;
  run.set_run_id("r-1");
  run.set_state("done");
  run.add_nodes("a");
  for (int i = 0; i < reports; ++i) {
    v1::StageReport* r = run.add_node_reports();
    r->set_node(i == 0 ? "a \"node_reports\": []\n" : "b");
    v1::ProbeResult* p = r->add_results();
    p->set_probe("pcie");
    p->add_findings()->set_code("PCIE_LINK_DEGRADED");
  }
  run.set_node_reports_total(reports);
  return run;
}

TEST(JsonOutputTest, RunPrintedByReportIsToJsonsTextExactly) {
  for (int n : {0, 1, 3}) {
    v1::StageRun run = RunOf(n);
    absl::StatusOr<std::string> whole = ToJson(run);
    absl::StatusOr<std::string> pieces = RunToJson(run);
    ASSERT_TRUE(whole.ok() && pieces.ok()) << n;
    EXPECT_EQ(*pieces, *whole) << n << " reports";
    EXPECT_EQ(run.node_reports_size(), n) << "the reports are put back";
  }
}

}  // namespace
}  // namespace nodeprobe::cli
