// The workload stage's measurement and judgement end to end on real Gloo,
// every rank a thread of this process over loopback TCP: a rank slowed by
// extra compute is named, and only it; the same shape without it names
// nobody. (The namespace lab with a shaped link comes with the stage.)
#include <gloo/rendezvous/hash_store.h>
#include <gtest/gtest.h>

#include <thread>

#include "coordinator/stages/workload/workload_judge.h"
#include "coordinator/stages/workload/workload_timing.h"
#include "probes/workload/gloo_replay.h"

namespace nodeprobe::coordinator {
namespace {

WorkloadJudgement ReplayAndJudge(int slow_rank, double slow_extra_ms) {
  workload::WorkloadShape s;
  s.tp = 2;
  s.hidden = 256;
  s.seq = 64;
  s.layers = 4;
  s.params_b = 0.001;
  s.compute_ms_per_layer = 0.1;
  s.warmup = 1;
  s.steps = 8;
  absl::StatusOr<workload::Placement> pl = workload::Place(s, 2, 2);
  EXPECT_TRUE(pl.ok());
  std::vector<std::vector<workload::Op>> programs;
  for (int r = 0; r < pl->size(); ++r) {
    programs.push_back(workload::StepProgram(s, *pl, r));
    if (r != slow_rank) continue;
    for (workload::Op& op : programs.back()) {
      if (op.kind == workload::OpKind::kCompute) op.compute_ms += slow_extra_ms;
    }
  }
  gloo::rendezvous::HashStore store;
  std::vector<workload::ReplayReport> reports(static_cast<size_t>(pl->size()));
  std::vector<std::thread> threads;
  for (int r = 0; r < pl->size(); ++r) {
    threads.emplace_back([&, r] {
      auto replay = workload::GlooReplay::Connect(*pl, r, store, "127.0.0.1", absl::Seconds(60));
      ASSERT_TRUE(replay.ok()) << replay.status();
      absl::StatusOr<workload::ReplayReport> report =
          (*replay)->Run(programs[r], s.warmup, s.steps);
      ASSERT_TRUE(report.ok()) << report.status();
      reports[r] = *std::move(report);
    });
  }
  for (std::thread& t : threads) t.join();
  absl::StatusOr<std::vector<StepTimes>> steps = StepTimesOf(*pl, programs, reports);
  EXPECT_TRUE(steps.ok()) << steps.status();
  return JudgeSteps(steps.ok() ? *steps : std::vector<StepTimes>{}, WorkloadRules{}, 3, 0.5);
}

TEST(WorkloadReplayTest, TheRankSlowedByItsComputeIsNamed) {
  const WorkloadJudgement j = ReplayAndJudge(2, 2.0);
  EXPECT_TRUE(j.straggler) << "late share " << j.late_share << ", " << j.late_ms << " ms (bar "
                           << j.bar_ms << ", noise " << j.noise_ms << "), step p50 "
                           << j.step_p50_ms << " cv " << j.step_cv;
  EXPECT_EQ(j.late_rank, 2);
  EXPECT_GT(j.late_ms, 5);
}

TEST(WorkloadReplayTest, NobodyIsNamedWhenNobodyIsSlow) {
  const WorkloadJudgement j = ReplayAndJudge(-1, 0);
  EXPECT_FALSE(j.straggler) << "rank " << j.late_rank << " late by " << j.late_ms << " ms";
}

}  // namespace
}  // namespace nodeprobe::coordinator
