// A training job's communication shape, as the workload stage replays it:
// its parallelism (tensor, pipeline, data, expert), the model dimensions
// that size every message, and the compute between them. Read from the
// profile's `workload:` section (coordinator/stages/workload/
// workload_profile.h), starting from a named shape when one is given.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace nodeprobe::workload {

// One operation of a step read from a job's NCCL log (`workload
// from-nccl-log`, logged_step.h), as the profile writes it:
// "c0 all_reduce 4096", "c1 send 8192 to 3", "c1 recv 8192 from 2",
// "c0 broadcast 8 root 0". Bytes as nccl-tests counts them (an all-gather's
// output, a reduce-scatter's input); the peer and root are job ranks.
struct LoggedOp {
  std::string comm;  // a key of LoggedStep::communicators
  std::string op;    // one of kLoggedOpNames
  uint64_t bytes = 0;
  int peer = -1;  // send: to, recv: from, broadcast: the root
};
inline constexpr const char* kLoggedOpNames[] = {"all_reduce", "all_gather", "reduce_scatter",
                                                 "broadcast",  "send",       "recv"};

// A job's own step: its communicators (members as job ranks, in each
// communicator's rank order) and each rank's ops in the order it issued
// them. Empty for a shape computed from the model.
struct LoggedStep {
  std::vector<std::pair<std::string, std::vector<int>>> communicators;
  std::vector<std::vector<LoggedOp>> programs;  // [job rank]
  bool empty() const { return programs.empty(); }
};

struct WorkloadShape {
  std::string name = "custom";  // the named shape it started from, or "custom"
  // Parallelism. dp 0: the ranks left over (ranks / (tp * pp)).
  int tp = 1;
  int pp = 1;
  int dp = 0;
  int ep = 1;
  // Ranks on each node; 0: the node's GPUs (1 on a node without GPUs).
  int ranks_per_node = 0;
  // Tensor-parallel groups stay inside a node unless this is set.
  bool tp_across_nodes = false;
  // The model.
  int64_t hidden = 4096;
  int layers = 32;
  int64_t seq = 4096;
  int micro_batch = 1;
  int micro_batches = 1;  // per step, per pipeline
  std::string dtype = "bf16";
  double params_b = 7;  // billions of parameters
  int experts = 0;      // 0: dense
  int top_k = 2;
  bool sequence_parallel = false;
  int zero = 0;  // ZeRO stage: 0 (DDP), 1 (optimizer sharded), 3 (parameters too)
  // Compute between collectives: one layer's forward, per micro-batch
  // (its backward takes twice as long).
  double compute_ms_per_layer = 1;
  // Every message is this share of the real one: a lab keeps the pattern
  // with smaller sizes.
  double scale = 1;
  int warmup = 2;
  int steps = 20;
  // Set: the step is the job's own (`workload.communicators` and
  // `workload.programs`), replayed as logged; the parallelism and model
  // keys are then unused, and compute_ms_per_layer is the gap before each
  // op.
  LoggedStep logged;
};

// Bytes per element of `dtype` ("bf16", "fp16": 2; "fp32": 4); 0 unknown.
int DtypeBytes(const std::string& dtype);

}  // namespace nodeprobe::workload
