// File: nccl_command.h
// `nodeprobe nccl`: the collectives over this node's GPUs with nccl-tests'
// flags (--min-bytes/--max-bytes/--step-factor or --sizes, --iters,
// --warmup-iters, --check), printed as nccl-tests prints them, judged
// like the nccl probe of `run`. Exits like `run`.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace nodeprobe::cli {

std::function<int()> AddNcclCommand(CLI::App& app);

}  // namespace nodeprobe::cli
