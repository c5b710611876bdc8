// File: agent_main.cc
// `nodeprobe-agent`: the node agent on its own, which `nodeprobe agent`
// execs (cli/main.cc). The agent stays resident on every node for months
// and mostly waits; the full binary maps every probe's library (hwloc,
// libxml2 with ICU, libnl, SQLite, libarchive, yaml-cpp, lldpctl,
// libibnetdisc, ...) and their pages count in its RSS. This one is linked
// with --as-needed against what the agent calls, so it maps only gRPC,
// protobuf, TLS and the /metrics server; the work itself still runs in the
// full binary beside it, started per task as `nodeprobe task`.
#include <optional>

#include <CLI/CLI.hpp>

#include "absl/synchronization/mutex.h"
#include "agent/agent_command.h"
#include "cli/command_line.h"
#include "nodeprobe_version.h"

int main(int argc, char** argv) {
  // As in cli/main.cc: Debian's abseil keeps a lock-order graph of every
  // mutex in memory it never returns.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CLI::App app{"The nodeprobe node agent (`nodeprobe agent` runs this)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", NODEPROBE_VERSION);
  std::function<int()> run =
      nodeprobe::agent::AddAgentCommand(app, nodeprobe::agent::BesideThisBinary("nodeprobe"));
  if (std::optional<int> done =
          nodeprobe::cli::ParseCommandLine(app, argc, argv, "nodeprobe-agent")) {
    return *done;
  }
  return run();
}
