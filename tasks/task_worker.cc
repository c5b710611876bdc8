#include "tasks/task_worker.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "platform/host_text.h"
#include "platform/node_busy.h"
#include "probes/builtin_probes.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/guard_profile.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/mtu/mtu_probe.h"
#include "probes/mtu/path_mtu.h"
#include "probes/nccl/collective_runner.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/transfer/transfer_engine.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_task.h"
#include "tasks/host_roots.h"
#include "tasks/workload_rank_task.h"

namespace nodeprobe::tasks {
namespace {

constexpr size_t kMaxTaskBytes = 1 << 20;

// The task's own time budget (600 s when the sender set none).
absl::Duration BudgetOf(const v1::Task& task) {
  return absl::Seconds(task.deadline_s() > 0 ? task.deadline_s() : 600);
}

void Done(const v1::Task& task, v1::ProbeResult result, const EventFn& emit) {
  v1::TaskEvent ev;
  ev.mutable_done()->set_task_id(task.task_id());
  *ev.mutable_done()->mutable_result() = std::move(result);
  emit(ev);
}

void RunProbesTask(const v1::Task& task, const Profile& profile, const EventFn& emit) {
  const v1::RunProbes& rp = task.run_probes();
  ProbeRegistry registry = BuiltinProbes();
  std::vector<Probe*> probes;
  if (rp.probes_size() == 0) {
    for (Probe* p :
         registry.ForStage(rp.stage() == v1::STAGE_UNSPECIFIED ? v1::SINGLE_NODE : rp.stage())) {
      if (std::find(rp.except_probes().begin(), rp.except_probes().end(), p->name()) ==
          rp.except_probes().end()) {
        probes.push_back(p);
      }
    }
  }
  for (const std::string& name : rp.probes()) {
    Probe* p = registry.Find(name);
    if (p == nullptr) {
      Done(task,
           ErrorResult("task", findings::kTaskFailed.code,
                       absl::StrCat("unknown probe '", name, "' (this node knows: ",
                                    absl::StrJoin(registry.Names(), ", "), ")")),
           emit);
      return;
    }
    probes.push_back(p);
  }
  v1::TaskEvent plan;
  for (Probe* p : probes) plan.mutable_plan()->add_probes(std::string(p->name()));
  emit(plan);

  ProbeContext ctx;
  ctx.host = FromHostRoots(rp.host());
  ctx.profile = &profile;
  ctx.node_name = rp.node_name();
  ctx.nccl_options = rp.nccl_options();
  ctx.force = rp.force();
  ctx.arguments = ProbeArguments(rp.arguments());
  ctx.skip_intrusive = rp.sweep() && !profile.Section<GuardRules>().intrusive_in_sweep;
  ctx.what_keeps_busy = [&ctx] { return platform::WhatKeepsNodeBusy(ctx.host); };
  ctx.deadline = absl::Now() + BudgetOf(task);
  v1::StageReport report = RunProbes(
      rp.stage() == v1::STAGE_UNSPECIFIED ? v1::SINGLE_NODE : rp.stage(), probes, ctx,
      [&](int, int, std::string_view name) {
        v1::TaskEvent ev;
        ev.set_started(std::string(name));
        emit(ev);
      },
      [&](const v1::ProbeResult& r) {
        v1::TaskEvent ev;
        *ev.mutable_probe_result() = r;
        emit(ev);
      });
  v1::TaskEvent done;
  done.mutable_done()->set_task_id(task.task_id());
  done.mutable_done()->mutable_result()->set_probe("single-node");
  done.mutable_done()->mutable_result()->set_verdict(report.verdict());
  *done.mutable_done()->mutable_report() = std::move(report);
  emit(done);
}

void ServeTransferTask(const v1::Task& task, const EventFn& emit) {
  auto server = transfer::TransferServer::Start(task.serve_transfer().bind_ip(), 0);
  if (!server.ok()) {
    Done(task,
         ErrorResult("transfer", findings::kTransferServeFailed.code,
                     absl::StrCat("cannot listen: ", server.status().message())),
         emit);
    return;
  }
  const v1::ServeTransfer& serve = task.serve_transfer();
  transfer::RdmaServeChoice choice{serve.device(), serve.port(), std::nullopt};
  if (serve.has_gid_index()) choice.gid_index = serve.gid_index();
  absl::StatusOr<int> gpu = transfer::BufferGpu(
      serve.has_gpu() ? std::optional<uint32_t>(serve.gpu()) : std::nullopt, serve.gpu_bus_id());
  if (!gpu.ok()) {
    Done(task,
         ErrorResult("transfer", findings::kTransferGpuNotUsable.code,
                     std::string(gpu.status().message())),
         emit);
    return;
  }
  choice.gpu = *gpu;
  (*server)->set_rdma_choice(choice);
  v1::TaskEvent ready;
  ready.mutable_ready()->set_task_id(task.task_id());
  ready.mutable_ready()->set_port((*server)->port());
  emit(ready);
  // Serves until the launcher kills the worker (at the task's end or
  // deadline), or until the launcher itself dies (PR_SET_PDEATHSIG).
  (*server)->Serve();
}

}  // namespace

void ExecuteTask(const v1::Task& task, const EventFn& emit) {
  absl::StatusOr<Profile> profile = ParseProfile(task.profile().yaml(), task.profile().source());
  if (!profile.ok()) {
    Done(task,
         ErrorResult("task", findings::kProfileInvalid.code,
                     std::string(profile.status().message())),
         emit);
    return;
  }
  switch (task.kind_case()) {
    case v1::Task::kRunProbes:
      RunProbesTask(task, *profile, emit);
      return;
    case v1::Task::kServeTransfer:
      ServeTransferTask(task, emit);
      return;
    case v1::Task::kRunTransfer: {
      v1::ProbeResult r;
      if (absl::Status valid = transfer::ValidateTransfer(task.run_transfer(), BudgetOf(task));
          !valid.ok()) {
        r = ErrorResult("transfer", findings::kTaskFailed.code, std::string(valid.message()));
      } else {
        r = transfer::RunTransferTask(task.run_transfer(), absl::Seconds(5), *profile);
      }
      FinalizeResult(*profile, &r);
      Done(task, std::move(r), emit);
      return;
    }
    case v1::Task::kRunPathMtu: {
      mtu::PathProbeOptions po;
      po.peer_ip = task.run_path_mtu().peer_host();
      po.port = static_cast<uint16_t>(task.run_path_mtu().peer_port());
      po.deadline = absl::Now() + BudgetOf(task);
      v1::ProbeResult r = ProbePath(po);
      FinalizeResult(*profile, &r);
      Done(task, std::move(r), emit);
      return;
    }
    case v1::Task::kRunCollective: {
      nccl::RankOutput out = nccl::RunCollectiveRank(
          task.run_collective(), absl::Now() + BudgetOf(task) * 0.9, [&](const std::string& id) {
            v1::TaskEvent ready;
            ready.mutable_ready()->set_task_id(task.task_id());
            ready.mutable_ready()->set_nccl_unique_id(id);
            emit(ready);
          });
      FinalizeResult(*profile, &out.result);
      Done(task, std::move(out.result), emit);
      // A call into NCCL that never returned still holds its thread: end
      // now, without destructors that would wait for it.
      if (out.abandoned) _exit(0);
      return;
    }
    case v1::Task::kRunWorkloadRank:
      RunWorkloadRankTask(task, *profile, emit);
      return;
    default:
      Done(task,
           ErrorResult("task", findings::kUnknownTask.code,
                       "unknown task type (the sender is newer than this node's nodeprobe?)"),
           emit);
  }
}

int TaskWorkerMain() {
  std::string input;
  char buf[65536];
  ssize_t n;
  while ((n = read(0, buf, sizeof(buf))) > 0) {
    input.append(buf, static_cast<size_t>(n));
    if (input.size() > kMaxTaskBytes) {
      std::cerr << "nodeprobe task: input larger than 1 MiB\n";
      return 2;
    }
  }
  v1::Task task;
  if (!task.ParseFromString(input)) {
    std::cerr << "nodeprobe task: stdin does not hold a nodeprobe.v1.Task (this command is "
                 "internal: the agent and `nodeprobe run` start it)\n";
    return 2;
  }
  // The events leave on a private copy of stdout; fd 1 itself goes to
  // stderr, so a library that prints (NCCL, CUDA) cannot corrupt them.
  const int events_fd = dup(1);
  if (events_fd < 0 || dup2(2, 1) < 0) {
    std::cerr << "nodeprobe task: cannot set up the event pipe\n";
    return 3;
  }
  google::protobuf::io::FileOutputStream out(events_fd);
  bool ok = true;
  ExecuteTask(task, [&](const v1::TaskEvent& event) {
    if (!ok) return;
    // The last guard: whatever host text a probe put in unrepaired leaves
    // as valid UTF-8, so the message parses on the other side.
    v1::TaskEvent ev = event;
    platform::MakeStringsValidUtf8(&ev);
    ok = google::protobuf::util::SerializeDelimitedToZeroCopyStream(ev, &out) && out.Flush();
  });
  return ok ? 0 : 3;
}

}  // namespace nodeprobe::tasks
