// File: nccl_log_command.h
// `nodeprobe nccl-log FILE|-`: what NCCL did in any job, from its
// NCCL_DEBUG=INFO log (version, network, devices, every connection's
// transport and GPUDirect RDMA), and the findings from it. Exits like `run`.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace nodeprobe::cli {

// Adds `nccl-log`; the callable returns its exit code, or -1 when it was
// not selected.
std::function<int()> AddNcclLogCommand(CLI::App& app);

}  // namespace nodeprobe::cli
