// File: stage_request.h
// Whether a RunStage request can start, before any node is touched: the
// options against the stage they belong to (--all, --pattern, --soak,
// --storage-storm) and the timeout. What a stage itself needs (its node
// count, --allow-disruptive, the storm's path) each stage says
// (stage.h's CheckRequest). Each
// refusal is one INVALID_ARGUMENT (FAILED_PRECONDITION for the failure
// stage without --allow-disruptive) that names the option and the fix.
// The coordinator's RunStage asks this; the orchestrator never sees a
// request it would refuse.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

// The request's shape: options against its stage, before the nodes are
// named (--all with --nodes, a pattern for another stage).
absl::Status CheckStageOptions(const v1::RunStageRequest& req);

// The timeout, the soak's length against it, the storm's stage.
absl::Status CheckStageFits(const v1::RunStageRequest& req);

}  // namespace nodeprobe::coordinator
