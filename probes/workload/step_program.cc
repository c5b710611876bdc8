#include "probes/workload/step_program.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace nodeprobe::workload {

const char* OpKindName(OpKind kind) {
  switch (kind) {
    case OpKind::kCompute:
      return "compute";
    case OpKind::kAllReduce:
      return "all_reduce";
    case OpKind::kAllGather:
      return "all_gather";
    case OpKind::kReduceScatter:
      return "reduce_scatter";
    case OpKind::kAllToAll:
      return "alltoall";
    case OpKind::kBroadcast:
      return "broadcast";
    case OpKind::kSend:
      return "send";
    case OpKind::kRecv:
      return "recv";
    case OpKind::kWait:
      return "wait";
  }
  return "?";
}

namespace {

// Builds one rank's program; each method appends the ops of one part of
// the step.
class ProgramBuilder {
 public:
  ProgramBuilder(const WorkloadShape& shape, const Placement& pl, int rank)
      : s_(shape), pl_(pl), me_(pl.ranks.at(static_cast<size_t>(rank))) {
    dtype_ = std::max(1, DtypeBytes(shape.dtype));
    layers_ = std::max(1, shape.layers / pl.pp);
    activation_ = static_cast<double>(shape.seq) * shape.micro_batch * shape.hidden * dtype_;
    const double shard_params = shape.params_b * 1e9 / (pl.tp * pl.pp);
    layer_param_bytes_ = shard_params * dtype_ / layers_;
    pp_members_ = pl.Members(rank, Group::kPp);
  }

  std::vector<Op> Build() {
    const int stages = pl_.pp;
    const int stage = me_.pp_index;
    const int m = s_.micro_batches;
    const int warmup = std::min(stages - stage - 1, m);
    int fwd = 0, bwd = 0;
    for (; fwd < warmup; ++fwd) Forward(fwd);
    while (fwd < m) {
      Forward(fwd++);
      Backward(bwd++);
    }
    while (bwd < m) Backward(bwd++);
    FlushBucket();
    if (pending_overlapped_) Add({.kind = OpKind::kWait, .label = "gradients reduced"});
    if (s_.zero == 1 && pl_.dp > 1) {
      Collective(OpKind::kAllGather, Group::kDp, layer_param_bytes_ * layers_,
                 "optimizer parameters");
    }
    return std::move(ops_);
  }

 private:
  // A message of `bytes` (already scaled) rounded up so every member's
  // share is whole elements.
  uint64_t Size(double bytes, int members) const {
    const uint64_t unit = static_cast<uint64_t>(dtype_) * static_cast<uint64_t>(members);
    const double scaled = std::max(1.0, bytes * s_.scale);
    return static_cast<uint64_t>(std::ceil(scaled / unit)) * unit;
  }
  void Add(Op op) { ops_.push_back(std::move(op)); }
  void Compute(double ms, std::string label) {
    Add({.kind = OpKind::kCompute, .compute_ms = ms, .label = std::move(label)});
  }
  void Collective(OpKind kind, Group group, double bytes, std::string label,
                  bool overlapped = false) {
    const int members = pl_.GroupSize(group);
    if (members < 2) return;
    Add({.kind = kind,
         .group = group,
         .bytes = Size(bytes, members),
         .overlapped = overlapped,
         .label = absl::StrCat(label, " ", GroupName(group), " ", OpKindName(kind))});
    pending_overlapped_ |= overlapped;
  }
  void PointToPoint(OpKind kind, int stage, int mb, bool backward, std::string label) {
    Add({.kind = kind,
         .group = Group::kPp,
         .bytes = Size(activation_, 1),
         .peer = pp_members_.at(static_cast<size_t>(stage)),
         .tag = 2 * mb + (backward ? 1 : 0),
         .label = std::move(label)});
  }
  // The TP exchange around one half of a layer: before it (sequence
  // parallel: gather the sequence) and after it.
  void TensorBefore(const std::string& at) {
    if (s_.sequence_parallel) Collective(OpKind::kAllGather, Group::kTp, activation_, at);
  }
  void TensorAfter(const std::string& at) {
    Collective(s_.sequence_parallel ? OpKind::kReduceScatter : OpKind::kAllReduce, Group::kTp,
               activation_, at);
  }
  void Layer(int mb, int layer, bool backward) {
    const std::string at = absl::StrCat(backward ? "bwd" : "fwd", " mb", mb, " L", layer);
    const double half = s_.compute_ms_per_layer / 2 * (backward ? 2 : 1);
    if (s_.zero == 3) Collective(OpKind::kAllGather, Group::kDp, layer_param_bytes_, at);
    TensorBefore(at);
    Compute(half, at + " attention");
    TensorAfter(at);
    TensorBefore(at);
    if (s_.experts > 0) {
      const double tokens = static_cast<double>(s_.seq) * s_.micro_batch * s_.top_k * s_.hidden;
      Collective(OpKind::kAllToAll, Group::kEp, tokens * dtype_, at + " dispatch");
      Compute(half, at + " experts");
      Collective(OpKind::kAllToAll, Group::kEp, tokens * dtype_, at + " combine");
    } else {
      Compute(half, at + " mlp");
    }
    TensorAfter(at);
    if (backward && s_.zero == 3) {
      Collective(OpKind::kReduceScatter, Group::kDp, layer_param_bytes_, at + " gradients");
    }
  }
  void Forward(int mb) {
    const int stage = me_.pp_index;
    if (stage > 0) {
      PointToPoint(OpKind::kRecv, stage - 1, mb, false, absl::StrCat("fwd mb", mb, " recv"));
    }
    for (int l = 0; l < layers_; ++l) Layer(mb, l, false);
    if (stage + 1 < pl_.pp) {
      PointToPoint(OpKind::kSend, stage + 1, mb, false, absl::StrCat("fwd mb", mb, " send"));
    }
  }
  // The last micro-batch's backward frees each layer's gradients: they
  // fill the DDP buckets (ZeRO 0 and 1).
  void Backward(int mb) {
    const bool last = mb + 1 == s_.micro_batches;
    const int stage = me_.pp_index;
    if (stage + 1 < pl_.pp) {
      PointToPoint(OpKind::kRecv, stage + 1, mb, true, absl::StrCat("bwd mb", mb, " recv"));
    }
    for (int l = layers_ - 1; l >= 0; --l) {
      Layer(mb, l, true);
      if (last && s_.zero < 3) {
        bucket_ += layer_param_bytes_;
        while (bucket_ >= static_cast<double>(kGradientBucketBytes)) {
          Bucket(static_cast<double>(kGradientBucketBytes));
        }
      }
    }
    if (stage > 0) {
      PointToPoint(OpKind::kSend, stage - 1, mb, true, absl::StrCat("bwd mb", mb, " send"));
    }
  }
  // One bucket of gradients reduced, overlapped with the backward.
  void Bucket(double bytes) {
    Collective(s_.zero == 1 ? OpKind::kReduceScatter : OpKind::kAllReduce, Group::kDp, bytes,
               absl::StrCat("gradients bucket ", buckets_++), /*overlapped=*/true);
    bucket_ -= bytes;
  }
  // The last, partial bucket when the backward ends.
  void FlushBucket() {
    if (bucket_ > 0) Bucket(bucket_);
  }

  const WorkloadShape& s_;
  const Placement& pl_;
  const RankPlace& me_;
  int dtype_ = 2;
  int layers_ = 1;
  double activation_ = 0;
  double layer_param_bytes_ = 0;
  std::vector<int> pp_members_;
  double bucket_ = 0;
  int buckets_ = 0;
  bool pending_overlapped_ = false;
  std::vector<Op> ops_;
};

OpKind LoggedKind(const std::string& op) {
  if (op == "all_reduce") return OpKind::kAllReduce;
  if (op == "all_gather") return OpKind::kAllGather;
  if (op == "reduce_scatter") return OpKind::kReduceScatter;
  if (op == "broadcast") return OpKind::kBroadcast;
  if (op == "send") return OpKind::kSend;
  return OpKind::kRecv;  // the profile admits only kLoggedOpNames
}

// A logged step's program: its ops as logged (bytes scaled like a computed
// shape's), the compute gap before each.
std::vector<Op> LoggedProgram(const WorkloadShape& shape, const Placement& pl, int rank) {
  std::vector<Op> out;
  std::map<std::string, int> index;
  for (size_t c = 0; c < pl.comms.size(); ++c) index[pl.comms[c].first] = static_cast<int>(c);
  std::map<std::pair<int, int>, int> tags;  // (from, to) -> messages so far
  for (const LoggedOp& l : shape.logged.programs.at(static_cast<size_t>(rank))) {
    const int comm = index.at(l.comm);
    const int members = static_cast<int>(pl.comms[static_cast<size_t>(comm)].second.size());
    const OpKind kind = LoggedKind(l.op);
    const bool p2p = kind == OpKind::kSend || kind == OpKind::kRecv;
    out.push_back({.kind = OpKind::kCompute,
                   .compute_ms = shape.compute_ms_per_layer,
                   .label = absl::StrCat("before ", l.comm, " ", l.op)});
    const uint64_t unit = 4ull * static_cast<uint64_t>(p2p ? 1 : members);
    const uint64_t scaled =
        static_cast<uint64_t>(std::max(1.0, static_cast<double>(l.bytes) * shape.scale));
    // The n-th message between two ranks has the same tag at both ends.
    const std::pair<int, int> pair =
        kind == OpKind::kSend ? std::make_pair(rank, l.peer) : std::make_pair(l.peer, rank);
    out.push_back({.kind = kind,
                   .group = Group::kDp,
                   .comm = comm,
                   .bytes = shape.scale < 1 ? (scaled + unit - 1) / unit * unit : l.bytes,
                   .peer = l.peer,
                   .tag = p2p ? tags[pair]++ : 0,
                   .label = absl::StrCat(l.comm, " ", l.op)});
  }
  return out;
}

}  // namespace

std::vector<Op> StepProgram(const WorkloadShape& shape, const Placement& placement, int rank) {
  if (!shape.logged.empty()) return LoggedProgram(shape, placement, rank);
  return ProgramBuilder(shape, placement, rank).Build();
}

std::vector<int> MembersOf(const Placement& placement, int rank, const Op& op) {
  if (op.comm >= 0) return placement.comms.at(static_cast<size_t>(op.comm)).second;
  return placement.Members(rank, op.group);
}

std::vector<std::tuple<int, std::string, std::vector<int>>> JoinOrder(const Placement& placement,
                                                                      int rank) {
  std::vector<std::tuple<int, std::string, std::vector<int>>> out;
  if (!placement.comms.empty()) {
    for (size_t c = 0; c < placement.comms.size(); ++c) {
      const auto& [name, m] = placement.comms[c];
      if (m.size() < 2 || std::find(m.begin(), m.end(), rank) == m.end()) continue;
      out.emplace_back(16 + static_cast<int>(c), absl::StrCat("log/", name), m);
    }
    return out;
  }
  for (Group group : {Group::kTp, Group::kDp, Group::kEp, Group::kPp}) {
    std::vector<int> m = placement.Members(rank, group);
    if (m.size() < 2) continue;
    out.emplace_back(static_cast<int>(group), GroupName(group), std::move(m));
  }
  return out;
}

std::string GroupLabel(const Placement& placement, const Op& op) {
  if (op.comm >= 0) return placement.comms.at(static_cast<size_t>(op.comm)).first;
  return GroupName(op.group);
}

StepVolume VolumeOf(const std::vector<Op>& program) {
  StepVolume v;
  for (const Op& op : program) {
    if (op.kind == OpKind::kCompute) {
      v.compute_ms += op.compute_ms;
    } else if (op.kind != OpKind::kWait) {
      v.bytes[op.group] += op.bytes;
      ++v.ops[op.group];
    }
  }
  return v;
}

std::vector<size_t> IsolatedOps(const std::vector<Op>& program) {
  std::vector<size_t> out;
  std::set<std::tuple<OpKind, Group, int, uint64_t>> seen;
  for (size_t i = 0; i < program.size(); ++i) {
    const Op& op = program[i];
    if (op.kind == OpKind::kCompute || op.kind == OpKind::kWait || op.kind == OpKind::kSend ||
        op.kind == OpKind::kRecv) {
      continue;
    }
    if (seen.insert({op.kind, op.group, op.comm, op.bytes}).second) out.push_back(i);
  }
  // Communicator by communicator (-1, a computed shape's, keeps its order).
  std::stable_sort(out.begin(), out.end(),
                   [&](size_t a, size_t b) { return program[a].comm < program[b].comm; });
  return out;
}

}  // namespace nodeprobe::workload
