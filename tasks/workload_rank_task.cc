#include "tasks/workload_rank_task.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/workload/burst.h"
#include "probes/workload/gloo_replay.h"
#include "probes/workload/nccl_replay.h"
#include "probes/workload/rendezvous_store.h"
#include "probes/workload/workload_profile.h"

namespace nodeprobe::tasks {
namespace {

v1::WorkloadRankReport ToProto(const workload::ReplayReport& r) {
  v1::WorkloadRankReport out;
  for (const workload::RankStep& s : r.steps) {
    v1::WorkloadRankReport::Step* step = out.add_steps();
    step->set_step_ms(s.step_ms);
    step->set_exposed_ms(s.exposed_ms);
    for (double ms : s.op_ms) step->add_op_ms(ms);
  }
  for (double ms : r.isolated_ms) out.add_isolated_ms(ms);
  out.set_library(r.library);
  out.set_version(r.version);
  out.set_transport(r.transport);
  return out;
}

// The rank's program on its library.
absl::StatusOr<workload::ReplayReport> ReplayProgram(const v1::RunWorkloadRank& w,
                                                     const workload::Placement& pl,
                                                     const workload::WorkloadShape& shape, int rank,
                                                     const std::vector<workload::Op>& program,
                                                     gloo::rendezvous::Store& store,
                                                     const std::string& bind, absl::Duration budget,
                                                     const std::function<void(int)>& at_step) {
  if (w.library() == "nccl") {
    for (const auto& [k, v] : w.env()) {
      if (!IsSettableNcclVariable(k)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "refusing to set ", k, ": not one of the NCCL_* variables nodeprobe sets"));
      }
      setenv(k.c_str(), v.c_str(), 1);
    }
    // One rank per GPU: its place on its node is its CUDA ordinal.
    return workload::ReplayOnNccl(pl, rank, pl.ranks[static_cast<size_t>(rank)].local_rank, store,
                                  program, shape.warmup, shape.steps, budget / 4, at_step);
  }
  absl::StatusOr<std::unique_ptr<workload::GlooReplay>> replay =
      workload::GlooReplay::Connect(pl, rank, store, bind, budget / 4);
  if (!replay.ok()) return replay.status();
  return (*replay)->Run(program, shape.warmup, shape.steps, at_step);
}

// The rank's replay; rank 0 serves the store for the run's lifetime.
absl::StatusOr<workload::ReplayReport> Replay(
    const v1::Task& task, const Profile& profile,
    const std::function<void(const v1::TaskEvent&)>& emit) {
  const v1::RunWorkloadRank& w = task.run_workload_rank();
  const absl::Duration budget = absl::Seconds(task.deadline_s() > 0 ? task.deadline_s() : 600);
  const workload::WorkloadShape shape = profile.Section<WorkloadRules>().Shape();
  absl::StatusOr<workload::Placement> pl =
      workload::Place(shape, static_cast<int>(w.nodes()), static_cast<int>(w.ranks_per_node()));
  if (!pl.ok()) return pl.status();
  if (static_cast<int>(w.rank()) >= pl->size()) {
    return absl::InvalidArgumentError(absl::StrCat("rank ", w.rank(), " of ", pl->size()));
  }
  const std::string bind = w.bind_ip().empty() ? "127.0.0.1" : w.bind_ip();
  std::unique_ptr<workload::StoreServer> server;
  platform::HostPort store{w.store_host(), static_cast<uint16_t>(w.store_port())};
  if (w.store_port() == 0) {
    absl::StatusOr<std::unique_ptr<workload::StoreServer>> s =
        workload::StoreServer::Start(bind, w.secret());
    if (!s.ok()) return s.status();
    server = *std::move(s);
    store = {bind, server->port()};
    v1::TaskEvent ready;
    ready.mutable_ready()->set_task_id(task.task_id());
    ready.mutable_ready()->set_port(server->port());
    emit(ready);
  }
  absl::StatusOr<std::unique_ptr<workload::StoreClient>> client =
      workload::StoreClient::Connect(store, w.secret(), budget / 4);
  if (!client.ok()) return client.status();
  const int rank = static_cast<int>(w.rank());
  const std::vector<workload::Op> program = workload::StepProgram(shape, *pl, rank);
  // A burst: each node's first rank runs it beside its steps.
  std::unique_ptr<workload::Burst> burst;
  const workload::RankPlace& place = pl->ranks[static_cast<size_t>(rank)];
  if (!w.burst().kind().empty() && place.local_rank == 0) {
    absl::StatusOr<std::unique_ptr<workload::Burst>> b = workload::Burst::Prepare(
        w.burst(), place.node, static_cast<int>(w.nodes()), bind, **client);
    if (!b.ok()) return b.status();
    burst = *std::move(b);
  }
  std::function<void(int)> at_step;
  if (burst) at_step = [&burst](int step) { burst->AtStep(step); };
  absl::StatusOr<workload::ReplayReport> report =
      ReplayProgram(w, *pl, shape, rank, program, **client, bind, budget, at_step);
  if (report.ok() && burst && !burst->error().empty()) {
    return absl::InternalError(burst->error());
  }
  return report;
}

}  // namespace

void RunWorkloadRankTask(const v1::Task& task, const Profile& profile,
                         const std::function<void(const v1::TaskEvent&)>& emit) {
  v1::TaskEvent done;
  v1::TaskResult* result = done.mutable_done();
  result->set_task_id(task.task_id());
  absl::StatusOr<workload::ReplayReport> report = Replay(task, profile, emit);
  if (report.ok()) {
    result->mutable_result()->set_probe("workload-rank");
    result->mutable_result()->set_verdict(v1::PASS);
    *result->mutable_workload() = ToProto(*report);
  } else {
    *result->mutable_result() = ErrorResult(
        "workload-rank", findings::kTaskFailed.code,
        absl::StrCat("rank ", task.run_workload_rank().rank(), ": ", report.status().message()));
  }
  emit(done);
}

}  // namespace nodeprobe::tasks
