// File: soak_series.h
// One figure measured again and again over a soak, judged over time: its
// mean, range, spread (stddev / mean) and drift (the last third's mean
// against the first third's). The two-node and cluster soaks (a transfer
// direction, coordinator/soak.h) and the single-node soak (a probe's
// bandwidth figure, cli/single_node_soak.h) judge their series here:
//   (its findings, with severity and remedy: probes/framework/framework_findings.h)
// A series needs 3 figures to be judged.
#pragma once

#include <string>
#include <vector>

#include "google/protobuf/repeated_ptr_field.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

struct SeriesStats {
  double mean = 0;
  double min = 0;
  double max = 0;
  double spread = 0;  // coefficient of variation
  double drift = 0;   // last third's mean / first third's - 1; 0 under 3 figures
};

SeriesStats StatsOf(const std::vector<double>& figures);

// Findings for `name` (device: `name`) into `findings`; `unit` is how the
// figures read ("Gb/s").
void JudgeSeries(const std::string& name, const std::vector<double>& figures,
                 const std::string& unit, double max_spread, double max_drift,
                 google::protobuf::RepeatedPtrField<v1::Finding>* findings);

}  // namespace nodeprobe
