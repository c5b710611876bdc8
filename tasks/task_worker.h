// File: task_worker.h
// The worker side of a task: runs one v1::Task in this process and hands
// out TaskEvents as it goes (tasks/task.proto says which, in what order).
// `nodeprobe task` (hidden) is this with stdin/stdout: the agent and the
// CLI start it through tasks/task_launcher.h and never run work in their
// own process.
#pragma once

#include <functional>

#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::tasks {

using EventFn = std::function<void(const v1::TaskEvent&)>;

// Runs `task` to its end (a ServeTransfer serves until its deadline).
void ExecuteTask(const v1::Task& task, const EventFn& emit);

// Reads one Task (binary protobuf) from stdin, writes length-delimited
// TaskEvents to stdout; returns the process exit code.
int TaskWorkerMain();

}  // namespace nodeprobe::tasks
