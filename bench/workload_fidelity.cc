// The workload stage's Gloo replay against a plain Gloo all-reduce loop of
// the same sizes, in this one process (ranks as threads over loopback TCP):
// the DP-only shape's gradient buckets as the stage times them vs
// gloo::allreduce on buffers of the same size, alternated REPS times;
// medians and ratio (target: within 10%). Then the stage's own overhead per
// step: the step's wall time minus the ops it ran (target < 2% of a step).
// Usage: workload_fidelity [RANKS] [REPS]
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "platform/statistics.h"
#include "probes/workload/gloo_replay.h"
#include "probes/workload/plain_allreduce.h"

namespace {

using nodeprobe::workload::GlooReplay;
using nodeprobe::workload::Op;
using nodeprobe::workload::OpKind;
using nodeprobe::workload::Placement;
using nodeprobe::workload::ReplayReport;
using nodeprobe::workload::WorkloadShape;

struct Figures {
  std::vector<double> bucket_ms;  // the stage's DP all-reduces
  std::vector<double> overhead;   // per step: share of the step outside its ops
  size_t bucket_bytes = 0;
};

Figures Stage(const WorkloadShape& s, const Placement& pl) {
  gloo::rendezvous::HashStore store;
  std::vector<ReplayReport> reports(static_cast<size_t>(pl.size()));
  std::vector<std::vector<Op>> programs;
  for (int r = 0; r < pl.size(); ++r) programs.push_back(StepProgram(s, pl, r));
  std::vector<std::thread> threads;
  for (int r = 0; r < pl.size(); ++r) {
    threads.emplace_back([&, r] {
      auto replay = GlooReplay::Connect(pl, r, store, "127.0.0.1", absl::Seconds(120));
      if (!replay.ok()) std::abort();
      auto report = (*replay)->Run(programs[r], s.warmup, s.steps);
      if (!report.ok()) std::abort();
      reports[r] = *report;
    });
  }
  for (auto& t : threads) t.join();
  Figures f;
  const std::vector<Op>& p0 = programs[0];
  for (const auto& step : reports[0].steps) {
    double ops = 0;
    for (size_t i = 0; i < p0.size(); ++i) {
      // Full buckets only: the last, partial one is another size.
      if (p0[i].kind == OpKind::kAllReduce &&
          p0[i].bytes >= nodeprobe::workload::kGradientBucketBytes) {
        f.bucket_ms.push_back(step.op_ms[i]);
        f.bucket_bytes = p0[i].bytes;
      }
      if (!p0[i].overlapped) ops += step.op_ms[i];
    }
    f.overhead.push_back((step.step_ms - ops) / step.step_ms);
  }
  return f;
}

std::vector<double> Plain(int ranks, size_t bytes, int iters) {
  gloo::rendezvous::HashStore store;
  std::vector<double> ms;
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      auto dev = gloo::transport::tcp::CreateDevice(gloo::transport::tcp::attr("127.0.0.1"));
      auto ctx = std::make_shared<gloo::rendezvous::Context>(r, ranks);
      gloo::rendezvous::PrefixStore prefixed("plain", store);
      ctx->connectFullMesh(prefixed, dev);
      const std::vector<double> times = nodeprobe::workload::TimePlainAllreduce(ctx, bytes, iters);
      if (r == 0) ms = times;
    });
  }
  for (auto& t : threads) t.join();
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  const int ranks = argc > 1 ? std::atoi(argv[1]) : 8;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 3;
  WorkloadShape s;  // DP only: 100 M parameters, bf16 gradients in 25 MB buckets
  s.params_b = 0.1;
  s.layers = 8;
  s.hidden = 256;
  s.seq = 16;
  s.compute_ms_per_layer = 0.01;
  s.warmup = 1;
  s.steps = 5;
  absl::StatusOr<Placement> pl = nodeprobe::workload::Place(s, ranks, 1);
  if (!pl.ok()) return 2;
  std::vector<double> stage_ms, plain_ms, overhead;
  size_t bytes = 0;
  for (int rep = 0; rep < reps; ++rep) {
    Figures f = Stage(s, *pl);
    bytes = f.bucket_bytes;
    stage_ms.insert(stage_ms.end(), f.bucket_ms.begin(), f.bucket_ms.end());
    overhead.insert(overhead.end(), f.overhead.begin(), f.overhead.end());
    std::vector<double> p = Plain(ranks, bytes, 10);
    plain_ms.insert(plain_ms.end(), p.begin(), p.end());
  }
  const double st = nodeprobe::stats::Median(stage_ms);
  const double pm = nodeprobe::stats::Median(plain_ms);
  std::printf("ranks %d, bucket %.1f MB, %zu stage samples, %zu plain\n", ranks, bytes / 1e6,
              stage_ms.size(), plain_ms.size());
  std::printf("all_reduce per bucket: stage %.2f ms, plain gloo %.2f ms, ratio %.3f\n", st, pm,
              st / pm);
  std::printf("stage overhead per step: median %.3f%%, max %.3f%%\n",
              100 * nodeprobe::stats::Median(overhead),
              100 * *std::max_element(overhead.begin(), overhead.end()));
  return 0;
}
