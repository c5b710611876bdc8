// File: stage_kernel_events.h
// The last part of every stage on agents: each node's agent says which
// hardware events its kernel logged while the stage ran (Xid, SXid, a GPU
// off the bus, PCIe AER, NIC link flaps: agent/kernel_watch.h), and the
// node's report carries them as its "kernel-events" result, so a stage
// during which an Xid or an uncorrected AER fired is not PASS whatever its
// measurements said. Events that need a GPU reset come back in every stage
// until the GPU is reset.
#pragma once

#include <memory>
#include <vector>

#include "absl/time/time.h"
#include "coordinator/agent_registry.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

using ProgressFn = std::function<void(const std::string&)>;

// Asks every live node for the events since `run`'s start; a node with
// events gets a "kernel-events" result in its report (one is added when it
// has none), or, with no report, run-level findings naming it. In the
// failure stage, NIC link flaps are what the stage did on purpose: they are
// left out, and the result says so. An agent that does not read the kernel
// log, or one that is gone, adds nothing; one that does not serve the
// question is not asked, and its report says so (NotAsked).
void AddKernelEvents(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                     absl::Time deadline, const ProgressFn& progress);

// How one node's answer lands in `run` (above; for tests).
void MergeKernelEvents(v1::StageRun* run, const std::string& node, v1::ProbeResult events);
// A node whose agent does not serve the question (a version behind): its
// report says so in a SKIP "kernel-events" result, so the record shows
// what was not asked instead of an absence.
void NotAsked(v1::StageRun* run, const std::string& node, const std::string& why);

}  // namespace nodeprobe::coordinator
