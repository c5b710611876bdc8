// File: transfer_command.h
// `nodeprobe transfer serve|run`: the transfer engine used peer to peer,
// without any daemon.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace nodeprobe::cli {

// The default control port: perftest's, so firewall rules carry over.
inline constexpr uint16_t kDefaultTransferPort = 18515;

// Adds the `transfer` subcommand; returns a callable that runs the chosen
// sub-subcommand and returns the exit code, or -1 when `transfer` was not
// selected.
std::function<int()> AddTransferCommand(CLI::App& app);

}  // namespace nodeprobe::cli
