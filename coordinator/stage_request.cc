#include "coordinator/stage_request.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace nodeprobe::coordinator {
namespace {

absl::Status CheckSoak(const v1::RunStageRequest& req) {
  if (req.soak_s() == 0) return absl::OkStatus();
  if (req.stage() != v1::TWO_NODE && req.stage() != v1::CLUSTER) {
    return absl::InvalidArgumentError(
        "--soak repeats the transfers of the two-node and cluster stages: run it with --stage "
        "two-node or cluster");
  }
  const double timeout = req.timeout_s() > 0 ? req.timeout_s() : 600;
  if (!std::isfinite(req.soak_s()) || req.soak_s() < 0 || req.soak_s() + 60 > timeout) {
    return absl::InvalidArgumentError(
        absl::StrFormat("a soak of %.0f s needs a --timeout at least 60 s longer (it is %.0f s)",
                        req.soak_s(), timeout));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckStageOptions(const v1::RunStageRequest& req) {
  if (req.stage() == v1::TWO_NODE && req.nodes_size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("two-node needs exactly 2 nodes, got ", req.nodes_size()));
  }
  const bool fleet_stage = req.stage() == v1::CLUSTER || req.stage() == v1::CONGESTION;
  if (req.all_nodes() && (!fleet_stage || req.nodes_size() > 0)) {
    return absl::InvalidArgumentError(
        "--all is for the cluster and congestion stages, instead of --nodes");
  }
  if (!req.pattern().empty() &&
      (req.stage() != v1::CLUSTER || (req.pattern() != "all-pairs" && req.pattern() != "ring"))) {
    return absl::InvalidArgumentError(
        absl::StrCat("pattern '", req.pattern(), "': the cluster stage takes all-pairs or ring"));
  }
  return absl::OkStatus();
}

absl::Status CheckStageFits(const v1::RunStageRequest& req) {
  if (!std::isfinite(req.timeout_s()) || req.timeout_s() < 0 || req.timeout_s() > 86400) {
    return absl::InvalidArgumentError("timeout must be a number of seconds up to 86400");
  }
  if (absl::Status soak = CheckSoak(req); !soak.ok()) return soak;
  if (req.storage_storm() && req.stage() != v1::CLUSTER) {
    return absl::InvalidArgumentError(
        "--storage-storm is an option of the cluster stage: run it with --stage cluster");
  }
  if (!req.workload_burst().kind().empty() && req.stage() != v1::WORKLOAD) {
    return absl::InvalidArgumentError(
        "--burst is an option of the workload stage: run it with --stage workload");
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::coordinator
