// File: record_check.h
// A run read back from elsewhere (a JSON file, an old store) is never
// trusted for its verdicts: every verdict is recomputed from the findings
// with the judging rules (FinalizeResult's for a result, the worst for a
// report, RunVerdict for the run), and a record whose stored verdicts
// disagree is refused rather than shown with a PASS its own findings deny.
// Refusing, not re-labelling: a bundle is signed evidence, and an edited
// record must not become one.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

// The verdict a run's contents give: the worst of its node reports, pairs,
// collectives, congestion and failure results and its own findings, SKIP
// not counting.
v1::Verdict RunVerdict(const v1::StageRun& run);

// OK when every stored verdict is what its findings give; otherwise
// FAILED_PRECONDITION naming the first that is not. INVALID_ARGUMENT for
// a document that is not a run (no run id or stage) or whose names are
// not valid names.
absl::Status CheckRecord(const v1::StageRun& run);

}  // namespace nodeprobe::coordinator
