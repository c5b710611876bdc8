#include "probes/framework/coverage.h"

#include <gtest/gtest.h>

namespace nodeprobe {
namespace {

v1::ProbeResult Result(v1::Verdict v, const std::string& reason = "") {
  v1::ProbeResult r;
  r.set_verdict(v);
  r.set_reason(reason);
  return r;
}

TEST(CoverageTest, APassOverSkipsSaysHowLittleWasJudged) {
  v1::StageReport report;
  *report.add_results() = Result(v1::PASS);
  *report.add_results() = Result(v1::SKIP, "no NVIDIA driver: libnvidia-ml.so.1 cannot be loaded");
  *report.add_results() = Result(v1::SKIP, "GPUDirect RDMA needs an NVIDIA GPU and an RDMA NIC");
  *report.add_results() = Result(v1::SKIP, "no RDMA devices under /sys/class/infiniband");
  *report.add_results() = Result(v1::SKIP, "no cabling record: cannot read lldpd");
  *report.add_results() = Result(v1::ERROR, "deadline");
  const v1::Coverage c = CoverageOf(report);
  EXPECT_EQ(c.total(), 6u);
  EXPECT_EQ(c.judged(), 1u);
  EXPECT_EQ(c.not_applicable(), 4u);
  EXPECT_EQ(c.not_run(), 1u);
  EXPECT_EQ(CoverageLine(c),
            "1 of 6 probes judged; 4 not applicable here (no GPU, no RDMA NIC, 1 other); "
            "1 could not run");
}

TEST(CoverageTest, WarnAndFailAreJudgedAndARunCountsEveryPart) {
  v1::StageRun run;
  v1::StageReport* node = run.add_node_reports();
  *node->add_results() = Result(v1::WARN);
  *run.add_pairs()->mutable_result() = Result(v1::FAIL);
  *run.add_collectives() = Result(v1::SKIP, "no GPU");
  run.add_congestion()->set_verdict(v1::PASS);
  const v1::Coverage c = CoverageOf(run);
  EXPECT_EQ(c.total(), 4u);
  EXPECT_EQ(c.judged(), 3u);
  EXPECT_EQ(CoverageLine(c, "results"),
            "3 of 4 results judged; 1 not applicable here (no GPU)");
  EXPECT_EQ(CoverageOf(std::vector<v1::StageRun>{run, run}).total(), 8u);
}

}  // namespace
}  // namespace nodeprobe
