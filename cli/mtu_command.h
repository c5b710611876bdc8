// File: mtu_command.h
// `nodeprobe mtu serve|probe`: the path-MTU responder and prober, usable
// without any daemon. Both use a default port so an operator needs no flags.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace nodeprobe::cli {

// Adds `mtu`; the returned callable runs the chosen subcommand and returns
// its exit code, or -1 when `mtu` was not selected.
std::function<int()> AddMtuCommand(CLI::App& app);

}  // namespace nodeprobe::cli
