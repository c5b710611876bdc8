// File: transfer_command.h
// `nodeprobe transfer serve|run`: the transfer engine used peer to peer,
// without any daemon.
#pragma once

#include <functional>
#include <string>

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// The default control port: perftest's, so firewall rules carry over.
inline constexpr uint16_t kDefaultTransferPort = 18515;

// Adds the `transfer` subcommand; returns a callable that runs the chosen
// sub-subcommand and returns the exit code, or -1 when `transfer` was not
// selected.
std::function<int()> AddTransferCommand(CLI::App& app);

}  // namespace nodeprobe::cli
