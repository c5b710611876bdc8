// File: agent_main.cc
// `nodeprobe-agent`: the node agent on its own, which `nodeprobe agent`
// execs (cli/main.cc). The agent stays resident on every node for months
// and mostly waits; the full binary maps every probe's library (hwloc,
// libxml2 with ICU, libnl, SQLite, libarchive, yaml-cpp, lldpctl,
// libibnetdisc, ...) and their pages count in its RSS. This one is linked
// with --as-needed against what the agent calls, so it maps only gRPC,
// protobuf, TLS and the /metrics server; the work itself still runs in the
// full binary beside it, started per task as `nodeprobe task`.
#include "agent/agent_command.h"

// Its flags are declared in agent_command.cc, the one unit of the agent
// that compiles CLI11.
int main(int argc, char** argv) { return nodeprobe::agent::AgentMain(argc, argv); }
