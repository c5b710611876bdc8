// One training step of a workload shape, as the ops one rank runs in order:
// compute (a calibrated busy wait standing in for the layer's kernels) and
// the communication the parallelism implies, sized from the model. The
// volumes are the published ones:
// - tensor parallelism (Shoeybi et al. 2019, Megatron-LM section 3): per
//   layer two all-reduces of the activations (seq x micro_batch x hidden)
//   forward and two backward; with sequence parallelism (Korthikanti et al.
//   2022, section 4.2) each becomes an all-gather plus a reduce-scatter of
//   the same tensor;
// - pipeline parallelism (Narayanan et al. 2021, PipeDream-Flush / 1F1B):
//   per micro-batch the activations go to the next stage forward and their
//   gradients come back, in the 1F1B order (stage s runs pp-s-1 forwards
//   before its first backward);
// - data parallelism: the gradients (parameters / (tp x pp) elements)
//   all-reduced in 25 MB buckets as the last micro-batch's backward frees
//   them, overlapped with it (PyTorch DDP's bucket_cap_mb default); ZeRO-1
//   reduce-scatters them instead and all-gathers the updated parameters
//   after the step, ZeRO-3 also all-gathers each layer's parameters before
//   its forward and backward (Rajbhandari et al. 2020, section 7: 1.5x
//   DDP's volume);
// - expert parallelism (Lepikhin et al. 2020, GShard; DeepSpeed-MoE): two
//   all-to-alls per MoE layer forward (dispatch, combine) of the tokens x
//   top_k x hidden, and two backward.
// Dense parameters only size the gradients (an MoE's expert weights are
// reduced within their expert group: left out, a lower bound).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "probes/workload/placement.h"

namespace nodeprobe::workload {

enum class OpKind {
  kCompute,
  kAllReduce,
  kAllGather,
  kReduceScatter,
  kAllToAll,
  kBroadcast,  // from `peer` (a logged step's; computed shapes have none)
  kSend,
  kRecv,
  kWait
};
const char* OpKindName(OpKind kind);  // "all_reduce", "send", ...

struct Op {
  OpKind kind = OpKind::kCompute;
  Group group = Group::kTp;  // a collective's or a send/recv's group
  // A logged step's communicator (Placement::comms index); -1: `group`'s.
  int comm = -1;
  // A collective's size as nccl-tests counts it (the all-reduced buffer,
  // the gathered output, the reduce-scatter's input, one rank's all-to-all
  // buffer); a send's or recv's message.
  uint64_t bytes = 0;
  double compute_ms = 0;
  int peer = -1;            // send/recv: the other rank
  // send/recv: the same number on both ends (micro-batch and direction),
  // so a transport matches the two.
  int tag = 0;
  bool overlapped = false;  // issued without waiting; done by the step's kWait
  std::string label;        // "fwd mb0 L3 tp all_reduce"
};

// One number per communicator a rank joins: a computed group's kind, or
// a logged communicator's index past them.
inline int CommKey(const Op& op) {
  return op.comm >= 0 ? 16 + op.comm : static_cast<int>(op.group);
}
// The groups `rank` joins (two or more members), in the one order every
// rank joins them: (CommKey, name, members).
std::vector<std::tuple<int, std::string, std::vector<int>>> JoinOrder(const Placement& placement,
                                                                      int rank);
// The members of the group `op` runs on, for `rank`.
std::vector<int> MembersOf(const Placement& placement, int rank, const Op& op);
// The group an op runs on, as the record names it: "tp", or a logged
// communicator's name.
std::string GroupLabel(const Placement& placement, const Op& op);

// The DDP bucket: gradients are reduced in chunks of this many bytes.
inline constexpr uint64_t kGradientBucketBytes = 25ull << 20;

// The ops of one step of `rank`, in its order (a logged step's: as
// logged, with compute_ms_per_layer before each op).
std::vector<Op> StepProgram(const WorkloadShape& shape, const Placement& placement, int rank);

// What a step moves per group, for the evidence and the tests.
struct StepVolume {
  std::map<Group, uint64_t> bytes;
  std::map<Group, int> ops;
  double compute_ms = 0;
};
StepVolume VolumeOf(const std::vector<Op>& program);

// The ops the replays also time alone, after the steps (nothing else
// running on the rank, no compute): the first of each collective's kind,
// group and size in `program`. Every member of a group runs the same
// program, so they agree on the list; a logged step's ranks run different
// programs but the same collectives on each communicator, so its list goes
// communicator by communicator (no two ranks wait in two orders). Sends
// and receives are left out: alone, each is only its peer's other half.
std::vector<size_t> IsolatedOps(const std::vector<Op>& program);
// Each is run once to warm up, then this many times; its median is the
// figure.
inline constexpr int kIsolatedRuns = 5;

}  // namespace nodeprobe::workload
