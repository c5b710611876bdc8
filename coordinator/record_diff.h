// What changed between two acceptance records of the same cluster: the
// question a platform team asks when it accepts a cluster again after an
// expansion, an upgrade or a repair (`nodeprobe evidence --diff OLD NEW`).
// Nodes added and removed; per node, the versions its inventory read
// (with the GPU model) and what its topology, cabling and configuration
// probes saw; the production gate's items whose state changed; and the
// figures (coordinator/baseline/figures.h) that moved by more than their
// spread. A figure's spread is the old record's own: the robust relative
// spread of that figure across its nodes (four or more), times the noise
// sigmas, and never less than `min_change` (fewer nodes cannot say how
// much a figure wanders; a run-to-run move of a bandwidth on one node is
// a few percent).
#pragma once

#include "absl/status/status.h"
#include "nodeprobe/v1/record_diff.pb.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

struct DiffOptions {
  double min_change = 0.05;  // a 5% move of a bandwidth is run-to-run wander
  double noise_sigmas = 3;
};

// INVALID_ARGUMENT when the two records share no node: acceptances of
// different fleets, whose differences would be everything and mean
// nothing.
absl::Status CheckSameFleet(const v1::StageRun& old_run, const v1::StageRun& new_run);

v1::RecordDiff DiffRecords(const v1::StageRun& old_run, const v1::StageRun& new_run,
                           const DiffOptions& options = {});

// Nothing changed at all (the lines a reader would see are empty).
bool Unchanged(const v1::RecordDiff& diff);
// The new record is worse: a figure moved the wrong way beyond its
// spread, a gate item that was met is not (or is no longer applicable is
// not worse), a node is gone, or the verdict went to FAIL or ERROR.
bool Worse(const v1::RecordDiff& diff);

}  // namespace nodeprobe::coordinator
