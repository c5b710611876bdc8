// The workload stage's rank task through real `nodeprobe task` workers, as
// an agent starts them: rank 0 serves the rendezvous store and says its
// port, the other ranks are started with it, and every rank answers with
// its measured steps on Gloo.
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "nodeprobe/v1/task.pb.h"
#include "tasks/task_launcher.h"

namespace nodeprobe {
namespace {

v1::Task RankTask(int rank, uint32_t store_port) {
  v1::Task t;
  t.set_task_id("w" + std::to_string(rank));
  t.set_deadline_s(60);
  t.mutable_profile()->set_source("w.yaml");
  t.mutable_profile()->set_yaml(
      "workload:\n  tp: 2\n  hidden: 256\n  seq: 64\n  layers: 2\n  params_b: 0.001\n"
      "  compute_ms_per_layer: 0.1\n  warmup: 1\n  steps: 3\n");
  v1::RunWorkloadRank* w = t.mutable_run_workload_rank();
  w->set_nodes(2);
  w->set_ranks_per_node(2);
  w->set_rank(static_cast<uint32_t>(rank));
  w->set_store_host("127.0.0.1");
  w->set_store_port(store_port);
  w->set_secret("a-secret-of-thirty-two-bytes-!!!");
  w->set_bind_ip("127.0.0.1");
  return t;
}

TEST(WorkloadRankTest, FourWorkersMeetThroughRankZeroAndReportTheirSteps) {
  std::mutex mu;
  std::condition_variable cv;
  uint32_t port = 0;
  std::vector<v1::TaskResult> results(4);
  std::vector<std::thread> ranks;
  ranks.emplace_back([&] {
    results[0] = tasks::RunTask(NODEPROBE_BINARY, RankTask(0, 0), absl::Now() + absl::Seconds(60),
                                [&](const v1::TaskEvent& ev) {
                                  if (!ev.has_ready()) return;
                                  std::lock_guard<std::mutex> l(mu);
                                  port = ev.ready().port();
                                  cv.notify_all();
                                });
  });
  {
    std::unique_lock<std::mutex> l(mu);
    ASSERT_TRUE(cv.wait_for(l, std::chrono::seconds(30), [&] { return port != 0; }))
        << "rank 0 never said its store's port";
  }
  for (int r = 1; r < 4; ++r) {
    ranks.emplace_back([&, r] {
      results[r] =
          tasks::RunTask(NODEPROBE_BINARY, RankTask(r, port), absl::Now() + absl::Seconds(60));
    });
  }
  for (std::thread& t : ranks) t.join();
  for (int r = 0; r < 4; ++r) {
    const v1::TaskResult& res = results[r];
    ASSERT_EQ(res.result().verdict(), v1::PASS) << r << ": " << res.DebugString();
    EXPECT_EQ(res.workload().library(), "gloo");
    ASSERT_EQ(res.workload().steps_size(), 3) << r;
    EXPECT_GT(res.workload().steps(0).step_ms(), 0);
    EXPECT_GT(res.workload().steps(0).op_ms_size(), 0);
  }
}

// A shape the ranks cannot hold is the task's ERROR, naming the key.
TEST(WorkloadRankTest, AShapeThatDoesNotFitIsAnErrorNamingTheKey) {
  v1::Task t = RankTask(0, 0);
  t.mutable_run_workload_rank()->set_nodes(1);
  t.mutable_run_workload_rank()->set_ranks_per_node(1);  // tp 2 on 1 rank
  const v1::TaskResult r = tasks::RunTask(NODEPROBE_BINARY, t, absl::Now() + absl::Seconds(30));
  EXPECT_EQ(r.result().verdict(), v1::ERROR);
  EXPECT_NE(r.result().DebugString().find("workload.tp"), std::string::npos) << r.DebugString();
}

}  // namespace
}  // namespace nodeprobe
