// File: node_busy.h
// The busy-node guard: what is running on this node that an intrusive
// probe (transfers, collectives, GPU copies, congestion, failure injection)
// would disturb, or be disturbed by. Read, never asked of a remote:
//   - GPU compute processes, as NVML lists them (the pids the driver sees);
//   - Slurm jobs: each running step has a slurmstepd whose process title is
//     "slurmstepd: [JOB.STEP]" (its extern step too, for the job's whole
//     life), read from /proc.
// Kubernetes pods holding GPUs show up as their GPU processes.
#pragma once

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nodeprobe/v1/gpu.pb.h"
#include "platform/file_tree.h"
#include "platform/host_paths.h"

namespace nodeprobe::platform {

// "Slurm job 1234 (slurmstepd pid 567)" per job with a step on this node,
// from the process titles under `proc`; each job once.
std::vector<std::string> SlurmJobsRunning(const FileTree& proc);

// "GPU 0000:19:00.0: pid 4242 (python3)" per compute process; the name from
// `proc` when the pid is visible there (it may belong to another pid
// namespace), else the count alone when NVML gave no pids.
std::vector<std::string> GpuProcessesRunning(const v1::GpuReport& gpus, const FileTree& proc);

// Both, on the live host (NVML through dlopen: call it from a task worker,
// never the agent). Empty: the node is idle. What is seen is looked at
// again after `confirm` and only what is still there counts: a process
// tearing down its CUDA context (seen on an H200: our own copy loop, just
// ended) is not a job. A captured tree says nothing about the live node:
// empty.
std::vector<std::string> WhatKeepsNodeBusy(const HostPaths& host,
                                           absl::Duration confirm = absl::Seconds(2));

}  // namespace nodeprobe::platform
