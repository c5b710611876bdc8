// A node's figures over time: each figure (figures.h) of `node` in every
// accepted run among `runs`, oldest first, with the baseline its class
// (the class of its newest run) has for that figure: what `report --trend
// NODE` shows, and what a dashboard reads to draw the drift before a
// regression is judged.
#pragma once

#include <string>
#include <vector>

#include "coordinator/baseline/figures.h"
#include "nodeprobe/v1/service.pb.h"
#include "nodeprobe/v1/trend.pb.h"

namespace nodeprobe::baseline {

// The fleet view: per class (the key contains `filter`) and figure, a
// point per accepted run with the median, lowest and highest of the
// class's nodes, and the class's baseline (through `marks`).
v1::FleetTrend FleetTrendOf(const std::vector<v1::StageRun>& runs, const Marks& marks = {},
                            const std::string& filter = "");

// `marks` shape the baseline (figures.h); every accepted run is a point.
v1::NodeTrend TrendOf(const std::vector<v1::StageRun>& runs, const std::string& node,
                      const Marks& marks = {});

}  // namespace nodeprobe::baseline
