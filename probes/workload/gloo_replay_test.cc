#include "probes/workload/gloo_replay.h"

#include <gloo/rendezvous/hash_store.h>
#include <gtest/gtest.h>

#include <thread>

namespace nodeprobe::workload {
namespace {

// Every rank of `shape` on `nodes` x `per_node` as threads of this process
// over loopback TCP, with one in-memory store.
std::vector<absl::StatusOr<ReplayReport>> ReplayAll(const WorkloadShape& shape, int nodes,
                                                    int per_node) {
  absl::StatusOr<Placement> pl = Place(shape, nodes, per_node);
  EXPECT_TRUE(pl.ok()) << pl.status();
  gloo::rendezvous::HashStore store;
  std::vector<absl::StatusOr<ReplayReport>> out(static_cast<size_t>(pl->size()),
                                                absl::UnknownError("not run"));
  std::vector<std::thread> ranks;
  for (int r = 0; r < pl->size(); ++r) {
    ranks.emplace_back([&, r] {
      absl::StatusOr<std::unique_ptr<GlooReplay>> replay =
          GlooReplay::Connect(*pl, r, store, "127.0.0.1", absl::Seconds(60));
      if (!replay.ok()) {
        out[r] = replay.status();
        return;
      }
      out[r] = (*replay)->Run(StepProgram(shape, *pl, r), shape.warmup, shape.steps);
    });
  }
  for (std::thread& t : ranks) t.join();
  return out;
}

WorkloadShape Small() {
  WorkloadShape s;
  s.hidden = 256;
  s.seq = 64;
  s.layers = 4;
  s.params_b = 0.002;  // 4 MB of gradients
  s.compute_ms_per_layer = 0.2;
  s.warmup = 1;
  s.steps = 3;
  return s;
}

TEST(GlooReplayTest, DataParallelStepsRunAndTimeEveryOp) {
  const WorkloadShape s = Small();
  for (const auto& r : ReplayAll(s, 2, 2)) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->library, "gloo");
    EXPECT_FALSE(r->version.empty());
    ASSERT_EQ(r->steps.size(), 3u);
    for (const RankStep& step : r->steps) {
      EXPECT_GT(step.step_ms, 0);
      EXPECT_GE(step.step_ms, step.exposed_ms);
    }
    // Each kind of collective was also timed alone, and nothing else.
    ASSERT_FALSE(r->isolated_ms.empty());
    int alone = 0;
    for (double ms : r->isolated_ms) alone += ms > 0;
    EXPECT_GT(alone, 0);
    EXPECT_LT(alone, static_cast<int>(r->isolated_ms.size()));
  }
}

// The acceptance lab's shape, scaled down: tp 2 inside each node, pp 2,
// dp 2 on 4 nodes x 2 ranks; the pipeline's sends and receives and the
// sequence-parallel gathers and scatters all complete.
TEST(GlooReplayTest, ThreeDimensionsRunToTheEnd) {
  WorkloadShape s = Small();
  s.tp = 2;
  s.pp = 2;
  s.micro_batches = 3;
  s.sequence_parallel = true;
  s.zero = 1;
  for (const auto& r : ReplayAll(s, 4, 2)) {
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->steps.size(), 3u);
  }
}

TEST(GlooReplayTest, ExpertAllToAllsRun) {
  WorkloadShape s = Small();
  s.ep = 2;
  s.experts = 4;
  for (const auto& r : ReplayAll(s, 2, 2)) ASSERT_TRUE(r.ok()) << r.status();
}

}  // namespace
}  // namespace nodeprobe::workload
