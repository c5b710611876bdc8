// File: agent_command.h
// `nodeprobe agent`: its flags and what it runs. Shared by the full
// `nodeprobe` binary and the agent's own slim one (agent_main.cc), which the
// full binary hands the command to so the resident daemon maps only what it
// uses (README: "The agent's footprint").
#pragma once

#include <functional>
#include <string>

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::agent {

// Adds the `agent` subcommand to APP; tasks run as `WORKER_EXE task`. The
// callable runs the agent when the subcommand was chosen and returns its
// exit code, else -1.
std::function<int()> AddAgentCommand(CLI::App& app, const std::string& worker_exe);

// The agent's own binary: execs `nodeprobe-agent` from beside this binary
// with the same arguments. Returns only when there is none (a build tree
// without it, a copied binary): the agent then runs in this process.
void ExecAgentBinary(char** argv);

// NAME in the directory of the running binary.
std::string BesideThisBinary(const std::string& name);

// main() of the agent's own binary (agent_main.cc): parses `agent ...`
// and runs it; the exit code.
int AgentMain(int argc, char** argv);

}  // namespace nodeprobe::agent
