// Declares `workload:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links
// (the shape's header, no code of np_workload).
#include "probes/workload/workload_profile.h"

#include <algorithm>
#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"

namespace nodeprobe {
namespace {

using workload::WorkloadShape;

// Dimensions from the models' papers and released configurations:
// LLaMA 2 7B and 70B (Touvron et al. 2023, table 1: hidden 4096/8192,
// layers 32/80), Mixtral 8x7B (Jiang et al. 2024: 8 experts, top 2,
// hidden 4096, 32 layers, 46.7B parameters). The parallel layouts are the
// usual ones for each: data parallel for a 7B fine-tune, TP 8 inside a
// node with 4 pipeline stages and sequence parallelism for 70B
// pre-training (Megatron-LM's published 70B recipes), experts spread over
// 8 ranks for Mixtral.
const std::map<std::string, workload::WorkloadShape>& Table() {
  static const std::map<std::string, workload::WorkloadShape> kShapes = [] {
    std::map<std::string, workload::WorkloadShape> t;
    workload::WorkloadShape dp7b;
    dp7b.name = "llama2-7b-dp";
    dp7b.hidden = 4096;
    dp7b.layers = 32;
    dp7b.params_b = 6.7;
    t[dp7b.name] = dp7b;

    workload::WorkloadShape tp70b;
    tp70b.name = "llama2-70b-tp8-pp4";
    tp70b.tp = 8;
    tp70b.pp = 4;
    tp70b.hidden = 8192;
    tp70b.layers = 80;
    tp70b.micro_batches = 8;
    tp70b.params_b = 70;
    tp70b.sequence_parallel = true;
    tp70b.zero = 1;
    t[tp70b.name] = tp70b;

    workload::WorkloadShape moe;
    moe.name = "mixtral-8x7b-ep8";
    moe.ep = 8;
    moe.hidden = 4096;
    moe.layers = 32;
    moe.experts = 8;
    moe.top_k = 2;
    moe.params_b = 46.7;
    t[moe.name] = moe;
    return t;
  }();
  return kShapes;
}

// One shape key: how it is read (range included) and where it goes.
struct ShapeKey {
  const char* key;
  std::string type;  // as `profile --explain` and the key's errors say it
  const char* doc;
  std::string absent;  // the default shape's value
  std::function<absl::StatusOr<std::function<void(WorkloadShape&)>>(
      const ProfileReader&, const YAML::Node&, const std::string&)>
      read;
};

// A key whose value `parse` reads as a T, then sets into `field`.
template <typename T, typename Parse>
ShapeKey Key(const char* key, T WorkloadShape::*field, std::string type, const char* doc,
             std::string absent, Parse parse) {
  return {key, std::move(type), doc, std::move(absent),
          [field, parse](const ProfileReader& r, const YAML::Node& v, const std::string& name)
              -> absl::StatusOr<std::function<void(WorkloadShape&)>> {
            absl::StatusOr<T> value = parse(r, v, name);
            if (!value.ok()) return value.status();
            return [field, value = *value](WorkloadShape& s) { s.*field = value; };
          }};
}

template <typename T>
ShapeKey WholeKey(const char* key, T WorkloadShape::*field, int64_t lo, int64_t hi, const char* doc,
                  const char* absent = nullptr) {
  return Key(key, field, absl::StrCat("integer ", lo, " .. ", hi), doc,
             absent != nullptr ? absent : absl::StrCat(WorkloadShape{}.*field),
             [lo, hi](const ProfileReader& r, const YAML::Node& v,
                      const std::string& name) -> absl::StatusOr<T> {
               absl::StatusOr<int64_t> n = r.Whole(v, name, lo, hi);
               if (!n.ok()) return n.status();
               return static_cast<T>(*n);
             });
}

// A number in (0, hi], in `unit` ("" for a share).
ShapeKey RealKey(const char* key, double WorkloadShape::*field, double hi, const char* unit,
                 const char* doc) {
  std::string type = absl::StrCat("number in (0, ", hi, "]", unit);
  return Key(key, field, type, doc, absl::StrCat(WorkloadShape{}.*field),
             [hi, type](const ProfileReader& r, const YAML::Node& v,
                        const std::string& name) -> absl::StatusOr<double> {
               absl::StatusOr<double> n = r.Number(v, name);
               if (!n.ok()) return n.status();
               if (!(*n > 0 && *n <= hi)) return r.Error(v, absl::StrCat(name, " must be ", type));
               return *n;
             });
}

ShapeKey FlagKey(const char* key, bool WorkloadShape::*field, const char* doc) {
  return Key(key, field, "true | false", doc, WorkloadShape{}.*field ? "true" : "false",
             [](const ProfileReader& r, const YAML::Node& v, const std::string& name) {
               return r.Bool(v, name);
             });
}

// "c0 all_reduce 4096", "c1 send 8192 to 3", "c0 broadcast 8 root 0".
absl::StatusOr<workload::LoggedOp> ReadOp(const ProfileReader& r, const YAML::Node& v,
                                          const std::string& name) {
  absl::StatusOr<std::string> text = r.String(v, name);
  if (!text.ok()) return text.status();
  const std::vector<std::string> w = absl::StrSplit(*text, ' ', absl::SkipEmpty());
  workload::LoggedOp op;
  const auto bad = [&](const std::string& why) {
    return r.Error(v, absl::StrCat(name, ": '", *text, "' ", why,
                                   " (write \"COMM OP BYTES\", and \"to N\", \"from N\" or "
                                   "\"root N\" for send, recv and broadcast)"));
  };
  if (w.size() < 3) return bad("is too short");
  op.comm = w[0];
  op.op = w[1];
  if (std::find(std::begin(workload::kLoggedOpNames), std::end(workload::kLoggedOpNames), op.op) ==
      std::end(workload::kLoggedOpNames)) {
    return bad(
        absl::StrCat("has no operation one of ", absl::StrJoin(workload::kLoggedOpNames, ", ")));
  }
  if (!absl::SimpleAtoi(w[2], &op.bytes) || op.bytes == 0 || op.bytes > (1ull << 40)) {
    return bad("has no size in bytes (1 .. 2^40)");
  }
  const char* want = op.op == "send"        ? "to"
                     : op.op == "recv"      ? "from"
                     : op.op == "broadcast" ? "root"
                                            : nullptr;
  if (want == nullptr) {
    if (w.size() != 3) return bad("has words after its size");
    return op;
  }
  if (w.size() != 5 || w[3] != want || !absl::SimpleAtoi(w[4], &op.peer) || op.peer < 0) {
    return bad(absl::StrCat("needs \"", want, " N\" after its size"));
  }
  return op;
}

// The log's step: `communicators` (name: [job ranks]) and `programs` (per
// rank, its ops). Place() checks they fit each other and the nodes.
ShapeKey CommunicatorsKey() {
  return {"communicators", "map of NAME: [job ranks]",
          "a job's own communicators (written by `workload from-nccl-log`)", "none",
          [](const ProfileReader& r, const YAML::Node& v,
             const std::string& name) -> absl::StatusOr<std::function<void(WorkloadShape&)>> {
            if (!v.IsMap() || v.size() == 0)
              return r.Error(v, absl::StrCat(name, " must be a map of NAME: [ranks]"));
            std::vector<std::pair<std::string, std::vector<int>>> comms;
            for (const auto& kv : v) {
              absl::StatusOr<std::string> comm = r.String(kv.first, name);
              if (!comm.ok()) return comm.status();
              const std::string key = absl::StrCat(name, ".", *comm);
              if (!kv.second.IsSequence() || kv.second.size() == 0)
                return r.Error(kv.second, absl::StrCat(key, " must be a list of job ranks"));
              std::vector<int> ranks;
              for (const YAML::Node& n : kv.second) {
                absl::StatusOr<int64_t> rank = r.Whole(n, key, 0, 1 << 20);
                if (!rank.ok()) return rank.status();
                ranks.push_back(static_cast<int>(*rank));
              }
              comms.emplace_back(*comm, std::move(ranks));
            }
            return [comms](WorkloadShape& s) { s.logged.communicators = comms; };
          }};
}

ShapeKey ProgramsKey() {
  return {"programs", "list (one per job rank) of lists of \"COMM OP BYTES [to|from|root N]\"",
          "a job's own step, each rank's ops in order (written by `workload from-nccl-log`)",
          "none",
          [](const ProfileReader& r, const YAML::Node& v,
             const std::string& name) -> absl::StatusOr<std::function<void(WorkloadShape&)>> {
            if (!v.IsSequence() || v.size() == 0)
              return r.Error(v, absl::StrCat(name, " must be a list, one entry per rank"));
            std::vector<std::vector<workload::LoggedOp>> programs;
            for (const YAML::Node& rank : v) {
              const std::string key = absl::StrCat(name, "[", programs.size(), "]");
              if (!rank.IsSequence())
                return r.Error(rank, absl::StrCat(key, " must be a list of ops"));
              std::vector<workload::LoggedOp> ops;
              for (const YAML::Node& o : rank) {
                absl::StatusOr<workload::LoggedOp> op = ReadOp(r, o, key);
                if (!op.ok()) return op.status();
                ops.push_back(*std::move(op));
              }
              programs.push_back(std::move(ops));
            }
            return [programs](WorkloadShape& s) { s.logged.programs = programs; };
          }};
}

const std::vector<ShapeKey>& ShapeKeys() {
  static const std::vector<ShapeKey> kKeys = {
      WholeKey("tp", &WorkloadShape::tp, 1, 1024, "tensor-parallel size"),
      WholeKey("pp", &WorkloadShape::pp, 1, 1024, "pipeline stages"),
      WholeKey("dp", &WorkloadShape::dp, 1, 65536, "data-parallel size", "the ranks left over"),
      WholeKey("ep", &WorkloadShape::ep, 1, 1024, "expert-parallel size (divides dp)"),
      WholeKey("ranks_per_node", &WorkloadShape::ranks_per_node, 1, 64, "ranks on each node",
               "its GPUs (1 without)"),
      FlagKey("tp_across_nodes", &WorkloadShape::tp_across_nodes,
              "let a tensor-parallel group span nodes"),
      WholeKey("hidden", &WorkloadShape::hidden, 64, 1 << 20, "the model's hidden size"),
      WholeKey("layers", &WorkloadShape::layers, 1, 1024,
               "transformer layers (split over the pipeline stages)"),
      WholeKey("seq", &WorkloadShape::seq, 1, 1 << 22, "sequence length in tokens"),
      WholeKey("micro_batch", &WorkloadShape::micro_batch, 1, 4096, "sequences per micro-batch"),
      WholeKey("micro_batches", &WorkloadShape::micro_batches, 1, 4096,
               "micro-batches per step (the pipeline's depth of work)"),
      WholeKey("experts", &WorkloadShape::experts, 0, 4096, "experts per MoE layer (0: dense)"),
      WholeKey("top_k", &WorkloadShape::top_k, 1, 64, "experts each token goes to"),
      FlagKey("sequence_parallel", &WorkloadShape::sequence_parallel,
              "TP all-reduces become all-gather + reduce-scatter"),
      WholeKey("warmup", &WorkloadShape::warmup, 0, 1000, "steps run before the measured ones"),
      WholeKey("steps", &WorkloadShape::steps, 3, 100000,
               "measured steps (a verdict needs several)"),
      RealKey("params_b", &WorkloadShape::params_b, 100000, "",
              "billions of parameters (sizes the gradients)"),
      RealKey("compute_ms_per_layer", &WorkloadShape::compute_ms_per_layer, 60000, " (ms)",
              "one layer's forward per micro-batch (backward: 2x)"),
      RealKey("scale", &WorkloadShape::scale, 1, "",
              "every message is this share of the real one (a small lab)"),
      Key("dtype", &WorkloadShape::dtype, "bf16 | fp16 | fp32", "element type of every message",
          WorkloadShape{}.dtype,
          [](const ProfileReader& r, const YAML::Node& v, const std::string& name) {
            return r.OneOf(v, name, {"bf16", "fp16", "fp32"});
          }),
      Key("zero", &WorkloadShape::zero, "0 | 1 | 3",
          "ZeRO stage: 0 DDP, 1 sharded optimizer, 3 parameters too",
          absl::StrCat(WorkloadShape{}.zero),
          [](const ProfileReader& r, const YAML::Node& v,
             const std::string& name) -> absl::StatusOr<int> {
            absl::StatusOr<std::string> z = r.OneOf(v, name, {"0", "1", "3"});
            if (!z.ok()) return z.status();
            return (*z)[0] - '0';
          }),
      CommunicatorsKey(),
      ProgramsKey(),
  };
  return kKeys;
}

absl::Status ReadBar(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     WorkloadRules& into) {
  const std::string name = absl::StrCat(WorkloadRules::kSection, ".", key);
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  const bool share = key == "step_cv_max" || key == "comm_share_max";
  if (key == "burst_slowdown_max") {
    if (!(*n >= 1 && *n <= 1000)) return r.Error(v, absl::StrCat(name, " must be in [1, 1000]"));
    into.burst_slowdown_max = *n;
    return absl::OkStatus();
  }
  if (*n <= 0 || (share && *n > 1) || (!share && *n > 3.6e6)) {
    return r.Error(
        v, absl::StrCat(name, share ? " must be in (0, 1]" : " must be in (0, 3600000] (ms)"));
  }
  if (key == "step_time_max_ms") into.step_time_max_ms = *n;
  if (key == "step_cv_max") into.step_cv_max = *n;
  if (key == "comm_share_max") into.comm_share_max = *n;
  if (key == "skew_max_ms") into.skew_max_ms = *n;
  return absl::OkStatus();
}

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     WorkloadRules& into) {
  const std::string name = absl::StrCat(WorkloadRules::kSection, ".", key);
  if (key == "shape") {
    absl::StatusOr<std::string> s = r.String(v, name);
    if (!s.ok()) return s.status();
    if (!NamedShape(*s)) {
      return r.Error(v, absl::StrCat(name, ": unknown shape '", *s,
                                     "' (known: ", absl::StrJoin(NamedShapes(), ", "), ")"));
    }
    into.shape_name = *s;
    return absl::OkStatus();
  }
  for (const ShapeKey& k : ShapeKeys()) {
    if (key != k.key) continue;
    absl::StatusOr<std::function<void(WorkloadShape&)>> set = k.read(r, v, name);
    if (!set.ok()) return set.status();
    into.overrides[key] = *std::move(set);
    return absl::OkStatus();
  }
  return ReadBar(r, key, v, into);
}

}  // namespace

std::optional<workload::WorkloadShape> NamedShape(const std::string& name) {
  auto it = Table().find(name);
  if (it == Table().end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> NamedShapes() {
  std::vector<std::string> out;
  for (const auto& [name, shape] : Table()) out.push_back(name);
  return out;
}

WorkloadShape WorkloadRules::Shape() const {
  WorkloadShape s;
  if (std::optional<WorkloadShape> named = NamedShape(shape_name)) s = *named;
  for (const auto& [key, apply] : overrides) apply(s);
  if (!s.logged.communicators.empty() || !s.logged.programs.empty()) s.name = "logged";
  return s;
}

ProfileSection WorkloadProfileSection() {
  const WorkloadRules w;
  std::vector<ProfileKey> keys = {
      {"workload.shape", absl::StrCat("one of ", absl::StrJoin(NamedShapes(), ", ")),
       "the defaults of each key", "a published model's shape to start from"},
  };
  for (const ShapeKey& k : ShapeKeys()) {
    keys.push_back({absl::StrCat("workload.", k.key), k.type,
                    absl::StrCat(k.absent, ", or the named shape's"), k.doc});
  }
  keys.push_back({"workload.step_time_max_ms", "number > 0 (ms)", "not judged",
                  "WORKLOAD_STEP_SLOW above it (FAIL)"});
  keys.push_back({"workload.step_cv_max", "number in (0, 1]", absl::StrCat(w.step_cv_max),
                  "WORKLOAD_STEP_JITTER above this coefficient of variation (WARN)"});
  keys.push_back({"workload.comm_share_max", "number in (0, 1]", absl::StrCat(w.comm_share_max),
                  "WORKLOAD_COMM_BOUND above this share of the step exposed in communication"});
  keys.push_back({"workload.burst_slowdown_max", "number in [1, 1000]",
                  absl::StrCat(w.burst_slowdown_max),
                  "WORKLOAD_BURST_STALLS above this step p99 during a burst over the p99 before"});
  keys.push_back({"workload.skew_max_ms", "number > 0 (ms)", "5% of the median step",
                  "a rank later than the others by more is WORKLOAD_STRAGGLER"});
  return DeclareSection<WorkloadRules>(std::move(keys), ReadKey);
}

}  // namespace nodeprobe
