// File: nccl_log_command.h
// `nodeprobe nccl-log FILE|-`: what NCCL did in any job, from its
// NCCL_DEBUG=INFO log (version, network, devices, every connection's
// transport and GPUDirect RDMA), and the findings from it. Exits like `run`.
#pragma once

#include <functional>

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// Adds `nccl-log`; the callable returns its exit code, or -1 when it was
// not selected.
std::function<int()> AddNcclLogCommand(CLI::App& app);

}  // namespace nodeprobe::cli
