#include "probes/workload/step_program.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

namespace nodeprobe::workload {
namespace {

Placement Placed(const WorkloadShape& s, int nodes, int per_node) {
  absl::StatusOr<Placement> pl = Place(s, nodes, per_node);
  EXPECT_TRUE(pl.ok()) << pl.status();
  return pl.ok() ? *pl : Placement();
}

// Megatron-LM: 4 all-reduces of seq x micro_batch x hidden per layer and
// micro-batch (2 forward, 2 backward).
TEST(StepProgramTest, TensorParallelMovesFourActivationsPerLayer) {
  WorkloadShape s;
  s.tp = 2;
  s.hidden = 1024;
  s.seq = 512;
  s.layers = 4;
  s.micro_batches = 3;
  s.params_b = 0;
  const Placement pl = Placed(s, 1, 2);
  const StepVolume v = VolumeOf(StepProgram(s, pl, 0));
  const uint64_t activation = 512ull * 1024 * 2;
  EXPECT_EQ(v.ops.at(Group::kTp), 3 * 4 * 4);
  EXPECT_EQ(v.bytes.at(Group::kTp), 3ull * 4 * 4 * activation);
  EXPECT_DOUBLE_EQ(v.compute_ms, 3 * 4 * (1.0 + 2.0));  // backward twice forward
  // Sequence parallel: each all-reduce becomes all-gather + reduce-scatter.
  s.sequence_parallel = true;
  const std::vector<Op> sp = StepProgram(s, pl, 0);
  int gathers = 0, scatters = 0;
  for (const Op& op : sp) {
    gathers += op.kind == OpKind::kAllGather;
    scatters += op.kind == OpKind::kReduceScatter;
  }
  EXPECT_EQ(gathers, 3 * 4 * 4);
  EXPECT_EQ(scatters, 3 * 4 * 4);
}

// DDP: the gradients (params / (tp x pp) elements) in 25 MB buckets,
// overlapped, then one wait.
TEST(StepProgramTest, DataParallelReducesTheGradientsInBuckets) {
  WorkloadShape s;
  s.params_b = 0.1;  // 100 M parameters: 200 MB of bf16 gradients
  s.layers = 10;
  const Placement pl = Placed(s, 2, 1);
  const std::vector<Op> p = StepProgram(s, pl, 1);
  uint64_t total = 0;
  int buckets = 0;
  for (const Op& op : p) {
    if (op.group != Group::kDp || op.kind != OpKind::kAllReduce) continue;
    EXPECT_TRUE(op.overlapped);
    EXPECT_LE(op.bytes, kGradientBucketBytes + 4);
    total += op.bytes;
    ++buckets;
  }
  EXPECT_NEAR(static_cast<double>(total), 0.1e9 * 2, 64);
  EXPECT_EQ(buckets, 8);  // 200 MB / 25 MiB, rounded up
  EXPECT_EQ(p.back().kind, OpKind::kWait);
  // ZeRO-1: reduce-scatter, then the parameters all-gathered after the step.
  s.zero = 1;
  const std::vector<Op> z = StepProgram(s, pl, 0);
  EXPECT_EQ(z.back().kind, OpKind::kAllGather);
  EXPECT_NEAR(static_cast<double>(z.back().bytes), 0.1e9 * 2, 64);
}

// 1F1B: stage 0 of 4 runs 3 warm-up forwards, then one forward and one
// backward at a time (so its first backward follows its 4th forward), then
// the cool-down backwards; the last stage alternates from the start. Each micro-batch's activation
// goes to the next stage and its gradient comes back.
TEST(StepProgramTest, PipelineStagesRunOneForwardOneBackward) {
  WorkloadShape s;
  s.pp = 4;
  s.layers = 4;
  s.micro_batches = 8;
  s.params_b = 0;
  const Placement pl = Placed(s, 4, 1);
  auto order = [&](int rank) {
    std::string o;
    for (const Op& op : StepProgram(s, pl, rank)) {
      if (op.kind == OpKind::kCompute && op.label.find(" L0 attention") != std::string::npos) {
        o += op.label[0];  // 'f' or 'b'
      }
    }
    return o;
  };
  EXPECT_EQ(order(0), "ffffbfbfbfbfbbbb");
  EXPECT_EQ(order(3), "fbfbfbfbfbfbfbfb");
  const StepVolume first = VolumeOf(StepProgram(s, pl, 0));
  EXPECT_EQ(first.ops.at(Group::kPp), 16);  // 8 sends forward, 8 receives back
  const std::vector<Op> mid = StepProgram(s, pl, 1);
  EXPECT_EQ(mid.front().kind, OpKind::kRecv);
  EXPECT_EQ(mid.front().peer, 0);
}

// GShard: two all-to-alls per MoE layer forward, two backward, each of
// tokens x top_k x hidden.
TEST(StepProgramTest, ExpertParallelExchangesTokensFourTimesPerLayer) {
  WorkloadShape s;
  s.ep = 4;
  s.experts = 8;
  s.top_k = 2;
  s.hidden = 256;
  s.seq = 128;
  s.layers = 2;
  s.params_b = 0;
  const Placement pl = Placed(s, 2, 2);
  const StepVolume v = VolumeOf(StepProgram(s, pl, 0));
  EXPECT_EQ(v.ops.at(Group::kEp), 2 * 4);
  EXPECT_EQ(v.bytes.at(Group::kEp), 2ull * 4 * 128 * 2 * 256 * 2);
}

// scale shrinks every message, keeping the pattern (and whole elements
// per member).
TEST(StepProgramTest, ScaleShrinksMessagesNotThePattern) {
  WorkloadShape s;
  s.tp = 2;
  s.layers = 2;
  s.params_b = 0;
  const Placement pl = Placed(s, 1, 2);
  const std::vector<Op> full = StepProgram(s, pl, 0);
  s.scale = 0.001;
  const std::vector<Op> small = StepProgram(s, pl, 0);
  ASSERT_EQ(full.size(), small.size());
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_EQ(full[i].kind, small[i].kind);
    if (full[i].bytes == 0) continue;
    EXPECT_LT(small[i].bytes, full[i].bytes / 500);
    EXPECT_EQ(small[i].bytes % 4, 0u);
  }
}

// Alone after the steps: the first of each collective's kind, group and
// size, never a send or a receive.
TEST(StepProgramTest, IsolatedOpsAreTheFirstOfEachCollective) {
  WorkloadShape s;
  s.tp = 2;
  s.pp = 2;
  s.layers = 2;
  s.micro_batches = 2;
  const Placement pl = Placed(s, 4, 2);
  const std::vector<Op> program = StepProgram(s, pl, 0);
  const std::vector<size_t> alone = IsolatedOps(program);
  std::set<std::tuple<OpKind, Group, uint64_t>> keys;
  for (size_t i : alone) {
    const Op& op = program[i];
    EXPECT_NE(op.kind, OpKind::kSend);
    EXPECT_NE(op.kind, OpKind::kRecv);
    EXPECT_NE(op.kind, OpKind::kCompute);
    EXPECT_TRUE(keys.insert({op.kind, op.group, op.bytes}).second) << op.label;
    for (size_t j = 0; j < i; ++j) {  // nothing of its key before it
      EXPECT_FALSE(program[j].kind == op.kind && program[j].group == op.group &&
                   program[j].bytes == op.bytes);
    }
  }
  std::set<Group> groups;
  for (const auto& k : keys) groups.insert(std::get<1>(k));
  EXPECT_EQ(groups, (std::set<Group>{Group::kTp, Group::kDp}));
}

}  // namespace
}  // namespace nodeprobe::workload
