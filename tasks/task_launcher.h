// File: task_launcher.h
// The caller's side of a task: starts a worker (`nodeprobe task`) in its
// own process group with the Task on stdin, reads its TaskEvents, and turns
// every way a worker can end -- an answer, its deadline, a crash -- into a
// TaskResult. Partial results are never lost: a stage whose worker hangs
// in one probe keeps the probes that finished, the stuck one is
// TASK_TIMEOUT, and one that crashes a worker is TASK_FAILED while the
// probes after it run in a fresh worker.
#pragma once

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/task.pb.h"
#include "platform/task_process.h"

namespace nodeprobe::tasks {

// Called for events as they arrive (progress lines, an EndpointReady).
using EventFn = std::function<void(const v1::TaskEvent&)>;

// Runs `task` in workers until it is answered or `deadline` passes; never
// fails (every failure is an ERROR result with TASK_TIMEOUT / TASK_FAILED).
v1::TaskResult RunTask(const std::string& worker_exe, const v1::Task& task, absl::Time deadline,
                       const EventFn& on_event = nullptr);

}  // namespace nodeprobe::tasks
