#include "probes/nccl/local_collectives.h"

#include <atomic>
#include <memory>
#include <optional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "platform/task_process.h"

namespace nodeprobe::nccl {
namespace {

v1::Task RankTask(const LocalRun& run, int rank, const std::string& id) {
  v1::Task t;
  t.set_task_id(absl::StrCat("nccl-rank-", rank));
  t.set_deadline_s(std::max(0.1, absl::ToDoubleSeconds(run.deadline - absl::Now()) - 0.5));
  *t.mutable_profile() = run.profile;
  v1::RunCollective* c = t.mutable_run_collective();
  *c->mutable_options() = run.options;
  c->set_nranks(static_cast<uint32_t>(run.gpus));
  c->set_rank(static_cast<uint32_t>(rank));
  c->set_gpu(static_cast<uint32_t>(rank));
  c->set_unique_id(id);
  for (const auto& [k, v] : run.env) (*c->mutable_env())[k] = v;
  return t;
}

}  // namespace

namespace {

// Rank 0's worker makes NCCL's unique id and says it before it runs; an
// empty id when it did not (its answer says why).
std::string UniqueIdFrom(platform::TaskWorker& rank0, absl::Time deadline, RankAnswer* answer) {
  while (true) {
    absl::StatusOr<v1::TaskEvent> ev = rank0.Next(deadline);
    if (!ev.ok()) {
      answer->lost = absl::StrCat("rank 0's worker ", ev.status().message());
      return "";
    }
    if (ev->has_ready()) return ev->ready().nccl_unique_id();
    if (ev->has_done()) {
      answer->result = ev->done().result();
      return "";
    }
  }
}

}  // namespace

std::vector<RankAnswer> RunLocalRanks(const LocalRun& run) {
  std::vector<RankAnswer> answers(static_cast<size_t>(run.gpus));
  for (int r = 0; r < run.gpus; ++r) {
    answers[r].rank = static_cast<uint32_t>(r);
    answers[r].node = run.node;
    answers[r].gpu = r;
  }
  std::vector<std::optional<platform::TaskWorker>> workers(static_cast<size_t>(run.gpus));
  // Rank 0 first: its worker creates the id.
  absl::StatusOr<platform::TaskWorker> w0 =
      platform::TaskWorker::Start(run.worker_exe, RankTask(run, 0, ""));
  if (!w0.ok()) {
    for (RankAnswer& a : answers) a.lost = absl::StrCat("not started: ", w0.status().message());
    return answers;
  }
  workers[0].emplace(*std::move(w0));
  const std::string id = UniqueIdFrom(*workers[0], run.deadline, &answers[0]);
  if (id.empty()) {
    for (int r = 1; r < run.gpus; ++r) answers[r].lost = "not started: rank 0 made no unique id";
    return answers;
  }
  for (int r = 1; r < run.gpus; ++r) {
    absl::StatusOr<platform::TaskWorker> w =
        platform::TaskWorker::Start(run.worker_exe, RankTask(run, r, id));
    if (w.ok()) {
      workers[r].emplace(*std::move(w));
    } else {
      answers[r].lost = absl::StrCat("not started: ", w.status().message());
    }
  }
  // Each rank's answer on its own thread; the first failure starts the grace.
  std::atomic<int64_t> stop_at_ns{absl::ToUnixNanos(run.deadline)};
  auto failed = [&] {
    const int64_t grace = absl::ToUnixNanos(absl::Now() + kRankGrace);
    int64_t cur = stop_at_ns.load();
    while (grace < cur && !stop_at_ns.compare_exchange_weak(cur, grace)) {
    }
  };
  std::vector<std::thread> threads;
  for (int r = 0; r < run.gpus; ++r) {
    if (!workers[r].has_value()) {
      failed();
      continue;
    }
    threads.emplace_back([&, r] {
      platform::TaskWorker& w = *workers[r];
      while (true) {
        const absl::Time stop = absl::FromUnixNanos(stop_at_ns.load());
        absl::StatusOr<v1::TaskEvent> ev =
            w.Next(std::min(stop, absl::Now() + absl::Milliseconds(200)));
        if (ev.ok()) {
          if (!ev->has_done()) continue;
          answers[r].result = ev->done().result();
          if (!RankFinished(*answers[r].result)) failed();
          return;
        }
        if (absl::IsDeadlineExceeded(ev.status())) {
          if (absl::Now() < absl::FromUnixNanos(stop_at_ns.load())) continue;
          w.Kill();
          answers[r].lost = absl::Now() >= run.deadline
                                ? "no answer by the run's deadline (worker killed)"
                                : "stopped: another rank had failed and this one did not answer "
                                  "within 5 s";
          return;
        }
        answers[r].lost = absl::StrCat("its worker ", ev.status().message());
        failed();
        return;
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return answers;
}

}  // namespace nodeprobe::nccl
