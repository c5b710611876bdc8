// `nodeprobe workload plan`: the workload stage's plan for a profile's
// `workload:` shape on N nodes, before anything runs: where each pipeline
// stage and group lands, and what one step moves per group, op count and
// compute, from the published volumes (probes/workload/step_program.h). A
// shape that does not fit the nodes is exit 2 naming the key.
#pragma once

#include <functional>

namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// Adds `workload`; the callable returns its exit code, or -1 when it was
// not selected.
std::function<int()> AddWorkloadCommand(CLI::App& app);

}  // namespace nodeprobe::cli
