// File: mtu_command.h
// `nodeprobe mtu serve|probe`: the path-MTU responder and prober, usable
// without any daemon. Both use a default port so an operator needs no flags.
#pragma once

#include <functional>

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// Adds `mtu`; the returned callable runs the chosen subcommand and returns
// its exit code, or -1 when `mtu` was not selected.
std::function<int()> AddMtuCommand(CLI::App& app);

}  // namespace nodeprobe::cli
