// File: fleet_command.h
// `nodeprobe fleet`: every agent the coordinator knows, its last verdict
// and how old it is, and the version matrix across the fleet with drift
// (a node off the fleet's most common version, or off the profile's pin).
#pragma once

#include <functional>
#include <map>
#include <string>

#include "absl/time/time.h"
#include "nodeprobe/v1/service.pb.h"

// Headers name CLI11's types only: its definitions cost seconds of every
// translation unit that includes it (the global validators it defines are
// compiled each time), so only the .cc files that declare flags do.
namespace CLI {
class App;
}  // namespace CLI

namespace nodeprobe::cli {

// The view of ListNodes' answer; `pins` is a profile's versions: section.
v1::FleetView BuildFleetView(const v1::ListNodesResponse& nodes,
                             const std::map<std::string, std::string>& pins);
std::string RenderFleet(const v1::FleetView& view, absl::Time now);
// 1 when a node's last verdict is FAIL or a node is off a pin, 3 when a
// node's last verdict is ERROR (and none FAIL), else 0. Drift from the
// majority alone is shown, not failed: a rolling upgrade is drift too.
int FleetExitCode(const v1::FleetView& view);

std::function<int()> AddFleetCommand(CLI::App& app);

}  // namespace nodeprobe::cli
