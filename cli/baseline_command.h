// `nodeprobe baseline show`: what each node class measured in the
// coordinator's accepted runs (coordinator/baseline): per class, each
// figure's median, spread, number of runs and their span. Read from the
// stored runs each time (one GetRun per accepted run).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "coordinator/baseline/figures.h"

namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// The table: a class's key, then a line per figure ("not enough runs"
// below `min_runs`); only classes whose key contains `filter`.
std::string RenderBaselines(const std::map<std::string, baseline::ClassBaselines>& classes,
                            const std::string& filter, size_t min_runs);

std::function<int()> AddBaselineCommand(CLI::App& app);

}  // namespace nodeprobe::cli
