// File: stage_request.h
// Whether a RunStage request can start, before any node is touched: the
// stage's node count, the options that belong to it (--all, --pattern,
// --soak, --storage-storm, --allow-disruptive) and the timeout. Each
// refusal is one INVALID_ARGUMENT (FAILED_PRECONDITION for the failure
// stage without --allow-disruptive) that names the option and the fix.
// The coordinator's RunStage asks this; the orchestrator never sees a
// request it would refuse.
#pragma once

#include <cstddef>

#include "absl/status/status.h"
#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// The request's shape: options against its stage, before the nodes are
// named (--all with --nodes, a pattern for another stage).
absl::Status CheckStageOptions(const v1::RunStageRequest& req);

// The stage against `nodes` named nodes and the profile that judges it.
absl::Status CheckStageFits(const v1::RunStageRequest& req, size_t nodes, const Profile& profile);

}  // namespace nodeprobe::coordinator
