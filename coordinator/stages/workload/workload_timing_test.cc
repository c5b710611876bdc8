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

// Four nodes of one rank, pipeline 2 x data parallel 2: rank 3's link is
// slow. Its data-parallel group's all-reduce took longer than the other
// group's, and its pipeline partner (rank 1) waited longer for its
// gradients than rank 0 waited for rank 2's: rank 3 is in both slow groups,
// rank 1 and rank 2 in one each, so only rank 3 is slow in every kind.
TEST(WorkloadTimingTest, TheNodeInEverySlowGroupHasTheMostExcess) {
  workload::WorkloadShape s;
  s.pp = 2;
  absl::StatusOr<workload::Placement> pl = workload::Place(s, 4, 1);
  ASSERT_TRUE(pl.ok());
  ASSERT_EQ(pl->dp, 2);
  auto stage0 = [](int peer) {
    return std::vector<workload::Op>{
        {.kind = workload::OpKind::kSend, .group = workload::Group::kPp, .bytes = 8, .peer = peer},
        {.kind = workload::OpKind::kRecv,
         .group = workload::Group::kPp,
         .bytes = 8,
         .peer = peer,
         .tag = 1},
        {.kind = workload::OpKind::kAllReduce, .group = workload::Group::kDp, .bytes = 100}};
  };
  auto stage1 = [](int peer) {
    return std::vector<workload::Op>{
        {.kind = workload::OpKind::kRecv, .group = workload::Group::kPp, .bytes = 8, .peer = peer},
        {.kind = workload::OpKind::kSend,
         .group = workload::Group::kPp,
         .bytes = 8,
         .peer = peer,
         .tag = 1},
        {.kind = workload::OpKind::kAllReduce, .group = workload::Group::kDp, .bytes = 100}};
  };
  const std::vector<std::vector<workload::Op>> programs = {stage0(2), stage0(3), stage1(0),
                                                           stage1(1)};
  std::vector<workload::ReplayReport> reports(4);
  reports[0].steps.push_back({.step_ms = 20, .op_ms = {0, 5, 10}});
  reports[1].steps.push_back({.step_ms = 20, .op_ms = {0, 8, 10}});
  reports[2].steps.push_back({.step_ms = 20, .op_ms = {5, 0, 16}});
  reports[3].steps.push_back({.step_ms = 20, .op_ms = {5, 0, 16}});
  absl::StatusOr<std::vector<StepTimes>> t = StepTimesOf(*pl, programs, reports);
  ASSERT_TRUE(t.ok()) << t.status();
  const std::vector<double>& slow = (*t)[0].slow_ms;
  ASSERT_EQ(slow.size(), 4u);
  // The least of each rank's kinds (DP all-reduce, pipeline pair).
  EXPECT_DOUBLE_EQ(slow[3], 1.5);   // +3 all-reduce, +1.5 its pair's receive
  EXPECT_DOUBLE_EQ(slow[1], -3);    // -3 all-reduce, +1.5 the pair it shares
  EXPECT_DOUBLE_EQ(slow[2], -1.5);  // +3 the all-reduce it shares, -1.5 its pair
  EXPECT_DOUBLE_EQ(slow[0], -3);
}

}  // namespace
}  // namespace nodeprobe::coordinator
