// `nodeprobe baseline show`: what each node class measured in the
// coordinator's accepted runs (coordinator/baseline): per class, each
// figure's median, spread, number of runs and their span. Read from the
// stored runs each time (one GetRun per accepted run), through the
// operators' marks: `baseline pin --from-run ID` freezes the classes of a
// run's nodes at the runs accepted up to it, `baseline forget --run ID`
// takes a run out of every baseline, `--class KEY` undoes a pin.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "cli/control_commands.h"
#include "coordinator/baseline/figures.h"
#include "nodeprobe/v1/trend.pb.h"

namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// The table: a class's key (and its pin), then a line per figure ("not
// enough runs" below `min_runs`); only classes whose key contains `filter`.
std::string RenderBaselines(const std::map<std::string, baseline::ClassBaselines>& classes,
                            const std::string& filter, size_t min_runs,
                            const baseline::Marks& marks = {});

// The same as `baseline show --format json` prints it.
v1::ClassBaselines BaselinesMessage(const std::map<std::string, baseline::ClassBaselines>& classes,
                                    const std::string& filter, size_t min_runs,
                                    const baseline::Marks& marks = {});

// Every accepted run the coordinator stores, whole (one GetRun each), and
// the operators' marks (none from a coordinator older than the Baselines
// service); `stored`: how many runs it stores in all.
absl::StatusOr<baseline::History> FetchHistory(CoordinatorClient& client, int* stored);

// `report --trend NODE`: each figure's values over the runs, against its
// class's median.
std::string RenderTrend(const v1::NodeTrend& trend);
// `report --fleet-trend`: per class and figure, each run's nodes' median,
// lowest and highest, against the class's median.
std::string RenderFleetTrend(const v1::FleetTrend& trend);

std::function<int()> AddBaselineCommand(CLI::App& app);

}  // namespace nodeprobe::cli
