// File: task_process.h
// One task worker process (`nodeprobe task`, or another binary given):
// started in its own process group with a Task on stdin, read back as
// length-delimited TaskEvents. The process part of tasks/task_launcher.h,
// here below probes/ so a probe that runs its work in workers (the NCCL
// ranks) needs nothing above it.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/task.pb.h"
#include "platform/child_process.h"

namespace nodeprobe::platform {

// The default worker: this very binary.
inline constexpr char kSelfExe[] = "/proc/self/exe";

// A running worker.
class TaskWorker {
 public:
  // `worker_exe task` with `task` on stdin; the task's deadline_s is the
  // worker's own budget.
  static absl::StatusOr<TaskWorker> Start(const std::string& worker_exe, const v1::Task& task);
  // The next event; DEADLINE_EXCEEDED at `deadline` (the worker is left
  // running: Kill() or destroy it); UNAVAILABLE when the worker ended
  // without more events, saying how it ended.
  absl::StatusOr<v1::TaskEvent> Next(absl::Time deadline);
  pid_t pid() const { return child_.pid(); }
  void Kill() { child_.Kill(); }

 private:
  explicit TaskWorker(ChildProcess child) : child_(std::move(child)) {}
  ChildProcess child_;
};

}  // namespace nodeprobe::platform
