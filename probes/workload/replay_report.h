// What one rank of a workload replay reports: its measured steps, each
// with its wall time, its time blocked in communication and every op's
// duration, and which library ran it. Written by the rank runners
// (gloo_replay.h; NCCL's to come), read by the stage (workload_timing.h).
#pragma once

#include <string>
#include <vector>

namespace nodeprobe::workload {

struct RankStep {
  double step_ms = 0;
  double exposed_ms = 0;      // blocked in communication (overlapped work: only its wait)
  std::vector<double> op_ms;  // per op of the program, its duration (0 for kWait)
};

struct ReplayReport {
  std::vector<RankStep> steps;  // the measured ones
  // Per op of the program: its median time alone after the steps, for the
  // ops IsolatedOps() names (step_program.h); 0 for the others.
  std::vector<double> isolated_ms;
  // "gloo" or "nccl", its version and transport: the record never presents
  // one library's figures as the other's.
  std::string library;
  std::string version;
  std::string transport;
};

}  // namespace nodeprobe::workload
