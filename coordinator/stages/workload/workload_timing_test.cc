#include "coordinator/stages/workload/workload_timing.h"

#include <gtest/gtest.h>

namespace nodeprobe::coordinator {
namespace {

// Two ranks in one TP group: an all-reduce rank 1 reached 5 ms late, so
// rank 0 spent 5 ms more in it; the compute and the overlapped bucket are
// not waits.
TEST(WorkloadTimingTest, AWaitIsTheDurationAboveTheGroupsShortest) {
  workload::WorkloadShape s;
  s.tp = 2;
  absl::StatusOr<workload::Placement> pl = workload::Place(s, 1, 2);
  ASSERT_TRUE(pl.ok());
  const std::vector<workload::Op> program = {
      {.kind = workload::OpKind::kCompute, .compute_ms = 1},
      {.kind = workload::OpKind::kAllReduce, .group = workload::Group::kTp, .bytes = 64},
      {.kind = workload::OpKind::kAllReduce,
       .group = workload::Group::kTp,
       .bytes = 64,
       .overlapped = true},
  };
  std::vector<workload::ReplayReport> reports(2);
  reports[0].steps.push_back({.step_ms = 9, .exposed_ms = 6, .op_ms = {1, 6, 3}});
  reports[1].steps.push_back({.step_ms = 9, .exposed_ms = 1, .op_ms = {6, 1, 1}});
  absl::StatusOr<std::vector<StepTimes>> t = StepTimesOf(*pl, {program, program}, reports);
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->size(), 1u);
  EXPECT_DOUBLE_EQ((*t)[0].wait_ms[0], 5);
  EXPECT_DOUBLE_EQ((*t)[0].wait_ms[1], 0);
  EXPECT_DOUBLE_EQ((*t)[0].exposed_ms[0], 6);
  EXPECT_DOUBLE_EQ((*t)[0].late_ms[1], 5);  // the others spent 5 ms more than it
  EXPECT_DOUBLE_EQ((*t)[0].late_ms[0], -5);
  reports[1].steps[0].op_ms.pop_back();
  EXPECT_FALSE(StepTimesOf(*pl, {program, program}, reports).ok());
}

}  // namespace
}  // namespace nodeprobe::coordinator
