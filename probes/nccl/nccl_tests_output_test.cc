// nccl-tests tables as printed on real machines (tests/fixtures/nccl), and
// nccl-tests' bus-bandwidth factors checked against every row they printed.
#include "probes/nccl/nccl_tests_output.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "gtest/gtest.h"
#include "probes/nccl/nccl_log.h"
#include "probes/nccl/nccl_log_judge.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::nccl {
namespace {

v1::NcclLogReport Parse(const std::string& name) {
  std::ifstream in(testing::FixturePath("nccl/" + name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return ParseNcclLog(s.str());
}

// busbw = algbw x factor, within the rounding of two printed decimals.
void ExpectFactor(const v1::NcclTestsRun& run, double factor) {
  ASSERT_GT(factor, 0);
  for (const v1::NcclTestsRow& r : run.rows()) {
    if (r.algbw_gbps() < 0.1) continue;
    EXPECT_NEAR(r.busbw_gbps(), r.algbw_gbps() * factor, 0.02 + 0.001 * r.busbw_gbps())
        << run.collective() << " size " << r.size();
    EXPECT_NEAR(r.in_place_busbw_gbps(), r.in_place_algbw_gbps() * factor,
                0.02 + 0.001 * r.in_place_busbw_gbps())
        << run.collective() << " size " << r.size();
  }
}

TEST(BusBwFactorTest, IsNcclTestsTable) {
  EXPECT_DOUBLE_EQ(BusBwFactor("all_reduce", 8), 1.75);
  EXPECT_DOUBLE_EQ(BusBwFactor("all_gather", 8), 0.875);
  EXPECT_DOUBLE_EQ(BusBwFactor("sendrecv", 8), 1);
  EXPECT_EQ(BusBwFactor("bogus", 8), 0);
  EXPECT_EQ(BusBwFactor("all_reduce", 0), 0);
}

TEST(NcclTestsOutputTest, FiveCollectivesOnOneH100Node) {
  v1::NcclLogReport r = Parse("nccl-tests_1node-8xh100_v2.17.8.log");
  ASSERT_EQ(r.tests_size(), 5);
  const char* names[] = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv"};
  for (int i = 0; i < 5; ++i) {
    const v1::NcclTestsRun& run = r.tests(i);
    EXPECT_EQ(run.collective(), names[i]);
    EXPECT_EQ(run.version(), "2.17.8");
    EXPECT_EQ(run.ranks(), 8u);
    EXPECT_EQ(run.rows_size(), 10);
    EXPECT_EQ(run.out_of_bounds(), 0);
    EXPECT_FALSE(run.error_column());
    ExpectFactor(run, BusBwFactor(run.collective(), 8));
  }
  const v1::NcclTestsRow& first = r.tests(0).rows(0);
  EXPECT_EQ(first.size(), 33554432u);
  EXPECT_EQ(first.type(), "double");
  EXPECT_EQ(first.root(), -1);
  EXPECT_DOUBLE_EQ(first.busbw_gbps(), 321.10);
  EXPECT_EQ(first.wrong(), "0");
  EXPECT_DOUBLE_EQ(r.tests(0).avg_busbw_gbps(), 437.957);
  EXPECT_EQ(r.tests(3).rows(0).in_place_wrong(), "N/A");  // alltoall has no in-place check
}

TEST(NcclTestsOutputTest, EightyRanksAcrossTenNodes) {
  v1::NcclLogReport r = Parse("nccl-tests_10node-8xh100_v2.17.8.log");
  ASSERT_EQ(r.tests_size(), 5);
  EXPECT_EQ(r.tests(0).ranks(), 80u);
  EXPECT_DOUBLE_EQ(r.tests(0).avg_busbw_gbps(), 265.631);
  for (const v1::NcclTestsRun& run : r.tests()) ExpectFactor(run, BusBwFactor(run.collective(), 80));
}

TEST(NcclTestsOutputTest, OlderTablesWithAnErrorColumn) {
  // The DeepOps table: no preamble, 4 DGX A100 = 32 ranks (the document).
  v1::NcclLogReport t = Parse("nccl-tests_4node-dgxa100_all_reduce_perf_table.txt");
  ASSERT_EQ(t.tests_size(), 1);
  EXPECT_TRUE(t.tests(0).error_column());
  EXPECT_EQ(t.tests(0).rows_size(), 13);
  EXPECT_EQ(t.tests(0).rows(0).wrong(), "7e-07");
  EXPECT_DOUBLE_EQ(t.tests(0).avg_busbw_gbps(), 113.289);
  ExpectFactor(t.tests(0), BusBwFactor("all_reduce", 32));
  // EFA, behind MPI's "[1,0]<stdout>:" tags, 16 ranks listed.
  v1::NcclLogReport e = Parse("efa-ofi_2node-8xa100-p4d_nccl2.9.9_all_reduce_perf.log");
  ASSERT_EQ(e.tests_size(), 1);
  EXPECT_EQ(e.tests(0).ranks(), 16u);
  EXPECT_EQ(e.tests(0).rows_size(), 30);
  EXPECT_DOUBLE_EQ(e.tests(0).avg_busbw_gbps(), 11.2432);
  ExpectFactor(e.tests(0), BusBwFactor("all_reduce", 16));
}

// nccl-tests prints #wrong with "%6g": a million wrong elements is
// "1.04858e+06". The H100 table's first row with that count in both halves
// is wrong, not "1" (in place) and not a clean row (out of place).
TEST(NcclTestsOutputTest, WrongCountsInExponentFormAreCounted) {
  std::ifstream in(testing::FixturePath("nccl/nccl-tests_1node-8xh100_v2.17.8.log"));
  std::stringstream s;
  s << in.rdbuf();
  std::string text = s.str();
  const std::string row =
      "    33554432       4194304    double     sum      -1   182.87  183.49  321.10       0   "
      "182.88  183.48  321.08       0";
  const size_t at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, row.size(),
               "    33554432       4194304    double     sum      -1   182.87  183.49  321.10 "
               "1.04858e+06   182.88  183.48  321.08 1.04858e+06");
  const v1::NcclLogReport r = ParseNcclLog(text);
  ASSERT_GE(r.tests_size(), 1);
  ASSERT_GE(r.tests(0).rows_size(), 1);
  EXPECT_EQ(r.tests(0).rows(0).wrong(), "1.04858e+06");
  EXPECT_EQ(r.tests(0).rows(0).in_place_wrong(), "1.04858e+06");
  const v1::ProbeResult j = JudgeNcclLog(r, {});
  bool wrong = false;
  for (const v1::Finding& f : j.findings()) wrong |= f.code() == "NCCL_WRONG_RESULT";
  EXPECT_TRUE(wrong) << j.DebugString();
}

TEST(NcclTestsOutputTest, RowsSplitByNcclInfoLinesAreReassembled) {
  v1::NcclLogReport r = Parse("roce-nogdr_1node-2xa100_nccl2.27.7_all_reduce_perf.log");
  ASSERT_EQ(r.tests_size(), 1);
  const v1::NcclTestsRun& run = r.tests(0);
  EXPECT_EQ(run.collective(), "all_reduce");
  EXPECT_EQ(run.ranks(), 2u);
  ASSERT_EQ(run.rows_size(), 11);
  EXPECT_EQ(run.rows(0).size(), 8388608u);
  EXPECT_DOUBLE_EQ(run.rows(0).time_us(), 83.33);
  EXPECT_DOUBLE_EQ(run.rows(0).busbw_gbps(), 100.66);
  EXPECT_DOUBLE_EQ(run.avg_busbw_gbps(), 178.078);
  ExpectFactor(run, BusBwFactor("all_reduce", 2));
  // The NCCL lines on the same lines are still read.
  EXPECT_GT(r.nccl_lines(), 1000u);
}

}  // namespace
}  // namespace nodeprobe::nccl
