// The workload stage's own cost per step at a scale: a TP 2 x PP 2 x DP
// (RANKS/4) shape replayed with every rank a thread over loopback TCP,
// then the coordinator's reading of it (StepTimesOf and JudgeSteps over
// every rank and step). Prints, as shares of the median step: the replay's
// time outside the ops it runs (its bookkeeping: timers, buffers, the
// overlap queue) and the coordinator's judgement per step. Target: both
// under 2% (issue 48), at 8 and at 64 ranks.
// Usage: workload_overhead [RANKS]   (a multiple of 4; default 8)
#include <gloo/rendezvous/hash_store.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "coordinator/stages/workload/workload_judge.h"
#include "coordinator/stages/workload/workload_timing.h"
#include "platform/statistics.h"
#include "probes/workload/gloo_replay.h"

namespace w = nodeprobe::workload;

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 8;
  if (ranks < 4 || ranks % 4 != 0) {
    std::fprintf(stderr, "workload_overhead: RANKS must be a multiple of 4\n");
    return 2;
  }
  w::WorkloadShape s;
  s.tp = 2;
  s.pp = 2;
  s.hidden = 256;
  s.seq = 64;
  s.layers = 4;
  s.micro_batches = 4;
  s.params_b = 0.002;
  s.compute_ms_per_layer = 0.5;
  s.warmup = 1;
  s.steps = 8;
  absl::StatusOr<w::Placement> pl = w::Place(s, ranks / 2, 2);
  if (!pl.ok()) return 2;
  std::vector<std::vector<w::Op>> programs;
  for (int r = 0; r < pl->size(); ++r) programs.push_back(w::StepProgram(s, *pl, r));
  gloo::rendezvous::HashStore store;
  std::vector<w::ReplayReport> reports(static_cast<size_t>(pl->size()));
  std::vector<std::thread> threads;
  for (int r = 0; r < pl->size(); ++r) {
    threads.emplace_back([&, r] {
      auto replay = w::GlooReplay::Connect(*pl, r, store, "127.0.0.1", absl::Seconds(300));
      if (!replay.ok()) std::abort();
      auto report = (*replay)->Run(programs[r], s.warmup, s.steps);
      if (!report.ok()) std::abort();
      reports[r] = *std::move(report);
    });
  }
  for (auto& t : threads) t.join();
  // The replay: each rank's step minus the ops it waited on.
  std::vector<double> outside, step_ms;
  for (size_t r = 0; r < reports.size(); ++r) {
    for (const w::RankStep& step : reports[r].steps) {
      double ops = 0;
      for (size_t i = 0; i < programs[r].size(); ++i) {
        if (!programs[r][i].overlapped) ops += step.op_ms[i];
      }
      outside.push_back(std::max(0.0, step.step_ms - ops) / step.step_ms);
      step_ms.push_back(step.step_ms);
    }
  }
  // The coordinator: reading and judging every step of every rank.
  const auto t = std::chrono::steady_clock::now();
  auto steps = nodeprobe::coordinator::StepTimesOf(*pl, programs, reports);
  if (!steps.ok()) return 1;
  nodeprobe::coordinator::JudgeSteps(*steps, nodeprobe::WorkloadRules{}, 3, 0.15);
  const double judge_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
  const double step = nodeprobe::stats::Median(step_ms);
  std::printf("ranks %d (%s), %d steps, median step %.1f ms\n", ranks, "tp 2 x pp 2 x dp RANKS/4",
              s.steps, step);
  std::printf("replay outside its ops: median %.3f%% of a step, p99 %.3f%%\n",
              100 * nodeprobe::stats::Median(outside),
              100 * nodeprobe::stats::Percentile(outside, 0.99));
  std::printf("coordinator judgement: %.3f ms per step, %.3f%% of a step\n", judge_ms / s.steps,
              100 * judge_ms / s.steps / step);
  return 0;
}
