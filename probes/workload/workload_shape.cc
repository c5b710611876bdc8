#include "probes/workload/workload_shape.h"

#include <map>

namespace nodeprobe::workload {
namespace {

// Dimensions from the models' papers and released configurations:
// LLaMA 2 7B and 70B (Touvron et al. 2023, table 1: hidden 4096/8192,
// layers 32/80), Mixtral 8x7B (Jiang et al. 2024: 8 experts, top 2,
// hidden 4096, 32 layers, 46.7B parameters). The parallel layouts are the
// usual ones for each: data parallel for a 7B fine-tune, TP 8 inside a
// node with 4 pipeline stages and sequence parallelism for 70B
// pre-training (Megatron-LM's published 70B recipes), experts spread over
// 8 ranks for Mixtral.
const std::map<std::string, WorkloadShape>& Table() {
  static const std::map<std::string, WorkloadShape> kShapes = [] {
    std::map<std::string, WorkloadShape> t;
    WorkloadShape dp7b;
    dp7b.name = "llama2-7b-dp";
    dp7b.hidden = 4096;
    dp7b.layers = 32;
    dp7b.params_b = 6.7;
    t[dp7b.name] = dp7b;

    WorkloadShape tp70b;
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

    WorkloadShape moe;
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

}  // namespace

int DtypeBytes(const std::string& dtype) {
  if (dtype == "bf16" || dtype == "fp16") return 2;
  if (dtype == "fp32") return 4;
  return 0;
}

std::optional<WorkloadShape> NamedShape(const std::string& name) {
  auto it = Table().find(name);
  if (it == Table().end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> NamedShapes() {
  std::vector<std::string> out;
  for (const auto& [name, shape] : Table()) out.push_back(name);
  return out;
}

}  // namespace nodeprobe::workload
