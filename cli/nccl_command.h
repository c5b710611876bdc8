// File: nccl_command.h
// `nodeprobe nccl`: the collectives over this node's GPUs with nccl-tests'
// flags (--min-bytes/--max-bytes/--step-factor or --sizes, --iters,
// --warmup-iters, --check), printed as nccl-tests prints them, judged
// like the nccl probe of `run`. Exits like `run`.
#pragma once

#include <functional>

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

std::function<int()> AddNcclCommand(CLI::App& app);

}  // namespace nodeprobe::cli
