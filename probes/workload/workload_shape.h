// A training job's communication shape, as the workload stage replays it:
// its parallelism (tensor, pipeline, data, expert), the model dimensions
// that size every message, and the compute between them. Read from the
// profile's `workload:` section (coordinator/stages/workload/
// workload_profile.h), starting from a named shape when one is given.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace nodeprobe::workload {

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
};

// Bytes per element of `dtype` ("bf16", "fp16": 2; "fp32": 4); 0 unknown.
int DtypeBytes(const std::string& dtype);

}  // namespace nodeprobe::workload
