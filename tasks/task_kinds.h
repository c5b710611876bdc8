// File: task_kinds.h
// The task table: every kind of Task (the name of its field in Task's
// oneof), what an agent states it serves when it registers, and what an
// agent older than that statement is taken to serve. One table for the
// agent, the coordinator and the benches' fake agents, so that in a fleet
// mid-upgrade the coordinator never sends a task an agent cannot serve
// and never waits on one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nodeprobe/v1/service.pb.h"
#include "nodeprobe/v1/task.pb.h"

namespace nodeprobe::tasks {

// The control protocol's version: 2 added the list of tasks served.
inline constexpr uint32_t kProtocol = 2;

// The task's kind ("run_probes", "serve_transfer", ...); "" when none is
// set. Metrics label tasks by it.
std::string TaskKind(const v1::Task& task);

// Every kind this build knows, in field order: what its agent serves.
// Read from Task's descriptor once (Serves runs on every task sent).
const std::vector<std::string>& AllTaskKinds();

// The kinds an agent that states no list serves: those of protocol 1,
// before the kernel-events question (field 17) and the workload rank.
const std::vector<std::string>& Protocol1Kinds();

// States in `reg` the protocol and the kinds an agent serves; false (and
// nothing stated) when one of them is not in the table.
[[nodiscard]] bool StateServed(v1::Registration* reg, const std::vector<std::string>& kinds);

// Whether the agent that sent `reg` serves `kind`.
bool Serves(const v1::Registration& reg, const std::string& kind);

// "<node>'s agent (nodeprobe 0.9, protocol 1) does not serve the <kind>
// task; ...": what a stage says about a task it could not ask.
std::string NotServedMessage(const v1::Registration& reg, const std::string& kind);

}  // namespace nodeprobe::tasks
