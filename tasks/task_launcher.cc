#include "tasks/task_launcher.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "nodeprobe_version.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/nccl/nccl_findings.h"

namespace nodeprobe::tasks {
namespace {

// The worker gets a little less time than its caller waits, so a task that
// can still end by itself (a probe run between probes) answers on its own.
double WorkerBudget(absl::Time deadline) {
  const double left = std::max(0.0, absl::ToDoubleSeconds(deadline - absl::Now()));
  return std::max(0.05, left - std::min(0.5, left * 0.1));
}

std::string TimeoutMessage(absl::Time started) {
  return absl::StrCat("the task passed its deadline (",
                      absl::FormatDuration(absl::Trunc(absl::Now() - started, absl::Milliseconds(100))),
                      ") and its worker was killed");
}

// When the probe now starting must end: the stage's deadline less a
// reserve for what is still to come: the cost of starting a fresh worker
// (as measured for the first one: seconds under a sanitizer on a busy
// host) plus at most 1 s for each probe, at most half the time left in all.
// One probe stuck in a read cannot take the others' time, while a slow probe
// among quick ones still gets nearly all of it.
absl::Time ProbeDeadline(absl::Time deadline, size_t still_to_come, absl::Duration worker_start) {
  if (still_to_come == 0) return deadline;
  const absl::Duration left = deadline - absl::Now();
  const absl::Duration per_probe =
      std::min(absl::Seconds(1), left / (2 * static_cast<int64_t>(still_to_come)));
  const absl::Duration reserve =
      std::min(left / 2, worker_start + per_probe * static_cast<int64_t>(still_to_come));
  return deadline - reserve;
}

// A probe stage across as many workers as it takes: a probe that hangs
// past its share of the time or crashes its worker costs only itself; the
// probes after it run in a fresh worker. Every probe the first worker
// planned ends with a row of its own.
class ProbesTask {
 public:
  ProbesTask(v1::Task task, absl::Time deadline, const EventFn& on_event)
      : task_(std::move(task)), deadline_(deadline), on_event_(on_event) {
    report_.set_stage(task_.run_probes().stage() == v1::STAGE_UNSPECIFIED
                          ? v1::SINGLE_NODE
                          : task_.run_probes().stage());
    report_.set_node(task_.run_probes().node_name());
    report_.set_nodeprobe_version(NODEPROBE_VERSION);
    *report_.mutable_started() = StampOf(absl::Now());
  }

  v1::TaskResult Run(const std::string& exe) {
    while (true) {
      task_.set_deadline_s(WorkerBudget(deadline_));
      const absl::Time spawned = absl::Now();
      absl::StatusOr<platform::TaskWorker> worker = platform::TaskWorker::Start(exe, task_);
      if (!worker.ok()) {
        ErrorRow("single-node", findings::kTaskFailed.code,
                 absl::StrCat("cannot start the probe worker: ", worker.status().message()));
        return Finish();
      }
      std::string running;
      absl::Status ended;
      if (Drive(*worker, spawned, &running, &ended)) return Finish();
      worker->Kill();
      if (!NextWorkerWanted(running, ended)) return Finish();
    }
  }

 private:
  // The worker's events until it is done (true) or ends otherwise (false:
  // `ended` says how, `running` the probe it was in, if any).
  bool Drive(platform::TaskWorker& worker, absl::Time spawned, std::string* running,
             absl::Status* ended) {
    absl::Time probe_deadline = deadline_;
    while (true) {
      absl::StatusOr<v1::TaskEvent> ev = worker.Next(probe_deadline);
      if (!ev.ok()) {
        *ended = ev.status();
        return false;
      }
      if (ev->has_plan()) {
        if (remaining_.empty()) {
          remaining_.assign(ev->plan().probes().begin(), ev->plan().probes().end());
          worker_start_ = absl::Now() - spawned;
        }
        planned_ = true;
      } else if (ev->has_started()) {
        *running = ev->started();
        probe_deadline = ProbeDeadline(deadline_, remaining_.empty() ? 0 : remaining_.size() - 1,
                                       worker_start_);
        if (on_event_) on_event_(*ev);
      } else if (ev->has_probe_result()) {
        AddRow(ev->probe_result());
        if (!remaining_.empty() && remaining_.front() == ev->probe_result().probe()) {
          remaining_.erase(remaining_.begin());
        }
        running->clear();
        probe_deadline = deadline_;
      } else if (ev->has_done()) {
        if (!ev->done().has_report()) {  // refused before any probe ran
          const v1::ProbeResult& r = ev->done().result();
          ErrorRow(r.probe(), r.findings_size() ? r.findings(0).code() : findings::kTaskFailed.code,
                   r.reason());
        }
        // Streamed results are already in; the worker's report adds nothing new.
        return true;
      }
    }
  }

  // After a worker that hung or died: its rows written, and whether the
  // probes after the one it was in get a fresh worker (the task then names
  // just them).
  bool NextWorkerWanted(const std::string& running, const absl::Status& ended) {
    if (!running.empty() && !remaining_.empty() && remaining_.front() == running) {
      remaining_.erase(remaining_.begin());
    }
    const bool late = ended.code() == absl::StatusCode::kDeadlineExceeded;
    // A fresh worker that ends before starting a probe leaves probes the
    // first worker planned: each keeps its own row, none is lost.
    if (running.empty() && !remaining_.empty()) {
      for (const std::string& p : remaining_) {
        ErrorRow(p, late ? findings::kProbeDeadlineExceeded.code : findings::kTaskFailed.code,
                 late ? "not started: the stage deadline passed while a fresh worker started "
                        "after another probe hung"
                      : absl::StrCat("not started: the fresh worker ", ended.message()));
      }
      return false;
    }
    const std::string who = running.empty() ? "the probe worker" : absl::StrCat("probe ", running);
    const std::string row = running.empty() ? "single-node" : running;
    if (late) {
      ErrorRow(row, findings::kTaskTimeout.code,
               absl::StrCat(who, " did not finish in its share of the stage's time (",
                            absl::FormatDuration(
                                absl::Trunc(absl::Now() - started_, absl::Milliseconds(100))),
                            " into the stage) and its worker was killed: a read or driver call "
                            "hung?"));
    } else {
      ErrorRow(row, findings::kTaskFailed.code,
               absl::StrCat(who, ": the worker ", ended.message()));
    }
    if (!planned_ || running.empty() || remaining_.empty()) return false;
    if (absl::Now() >= deadline_) {
      for (const std::string& p : remaining_) {
        ErrorRow(p, findings::kProbeDeadlineExceeded.code,
                 "not started: the stage deadline passed while another probe ran");
      }
      return false;
    }
    task_.mutable_run_probes()->clear_probes();
    for (const std::string& p : remaining_) task_.mutable_run_probes()->add_probes(p);
    planned_ = false;
    return true;
  }

  void AddRow(const v1::ProbeResult& r) {
    *report_.add_results() = r;
    if (on_event_) {
      v1::TaskEvent ev;
      *ev.mutable_probe_result() = r;
      on_event_(ev);
    }
  }
  void ErrorRow(const std::string& probe, const std::string& code, const std::string& msg) {
    v1::ProbeResult r = ErrorResult(probe, code, msg);
    r.set_node(report_.node());
    *r.mutable_started() = StampOf(absl::Now());
    *r.mutable_finished() = StampOf(absl::Now());
    AddRow(r);
  }
  v1::TaskResult Finish() {
    *report_.mutable_finished() = StampOf(absl::Now());
    FinalizeReport(&report_);
    v1::TaskResult out;
    out.set_task_id(task_.task_id());
    out.mutable_result()->set_probe("single-node");
    out.mutable_result()->set_verdict(report_.verdict());
    *out.mutable_report() = report_;
    return out;
  }

  v1::Task task_;
  const absl::Time deadline_;
  const EventFn& on_event_;
  const absl::Time started_ = absl::Now();
  v1::StageReport report_;
  std::vector<std::string> remaining_;  // known once the first worker sent its plan
  bool planned_ = false;
  absl::Duration worker_start_ = absl::ZeroDuration();  // spawn to plan, first worker
};

v1::TaskResult RunProbesTask(const std::string& exe, v1::Task task, absl::Time deadline,
                             const EventFn& on_event) {
  return ProbesTask(std::move(task), deadline, on_event).Run(exe);
}

}  // namespace

v1::TaskResult RunTask(const std::string& worker_exe, const v1::Task& task, absl::Time deadline,
                       const EventFn& on_event) {
  if (task.has_run_probes()) return RunProbesTask(worker_exe, task, deadline, on_event);
  const absl::Time started = absl::Now();
  const std::string probe = task.has_run_path_mtu() ? "mtu" : "transfer";
  v1::Task sent = task;
  sent.set_deadline_s(WorkerBudget(deadline));
  v1::TaskResult out;
  out.set_task_id(task.task_id());
  absl::StatusOr<platform::TaskWorker> worker = platform::TaskWorker::Start(worker_exe, sent);
  absl::Status ended = worker.status();
  while (worker.ok()) {
    absl::StatusOr<v1::TaskEvent> ev = worker->Next(deadline);
    if (!ev.ok()) {
      ended = ev.status();
      worker->Kill();
      break;
    }
    if (on_event) on_event(*ev);
    if (ev->has_done()) {
      out = ev->done();
      out.set_task_id(task.task_id());
      return out;
    }
  }
  if (ended.code() == absl::StatusCode::kDeadlineExceeded) {
    *out.mutable_result() =
        ErrorResult(probe, findings::kTaskTimeout.code, TimeoutMessage(started));
  } else {
    *out.mutable_result() = ErrorResult(probe, findings::kTaskFailed.code,
                                        absl::StrCat("the task's worker ", ended.message()));
  }
  return out;
}

}  // namespace nodeprobe::tasks
