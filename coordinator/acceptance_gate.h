// File: acceptance_gate.h
// The production gate a record answers. One row per item a platform team
// must show before production: the measured half (versions, topology and
// cabling, MTU from the workload path, transfers, collectives, congestion,
// failure) from the runs, the organisational half (owners, alerting,
// rollback, limitations, lifecycle, the service objective) from the
// profile's acceptance: section. An item nothing measured is "not run",
// never met; an organisational item the profile lacks is "not met" and
// names the key that would supply it. A campaign (several runs) answers
// each item from the union of its runs and names the nodes an item did
// not cover.
#pragma once

#include <vector>

#include "nodeprobe/v1/gate.pb.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

// The gate of a record of one run or a campaign of several. The
// organisational items come from the newest run's profile.
v1::GateChecklist GateOf(const std::vector<v1::StageRun>& runs);

// "met", "not met", "not run", "not applicable".
const char* GateStateName(v1::GateState state);

// The run with its gate set, as `report` and `run --format json` print it.
v1::StageRun WithGate(v1::StageRun run);

}  // namespace nodeprobe::coordinator
