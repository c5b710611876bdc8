// File: collective_judge.h
// One verdict from the ranks of an NCCL run, wherever they ran (local GPUs
// or nodes over the coordinator): their rows merged as nccl-tests merges
// them (time averaged over ranks; the slowest rank kept beside it), busbw
// with nccl-tests' factors, wrong results, ranks that did not finish, what
// NCCL's own log says it did, and the profile's bars.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "probes/nccl/nccl_log_judge.h"

namespace nodeprobe::nccl {

struct RankAnswer {
  uint32_t rank = 0;
  std::string node;
  int gpu = 0;
  // The rank task's result; nullopt when none came back (`lost` says why).
  std::optional<v1::ProbeResult> result;
  std::string lost;
};

// Whether a rank's answer says it ran every size to the end.
bool RankFinished(const v1::ProbeResult& rank_result);

// After the first rank fails, how long the others may take to say so
// themselves (they see NCCL's remote error) before they are stopped.
inline constexpr absl::Duration kRankGrace = absl::Seconds(5);

// The largest size run of each collective, in the order they ran.
std::vector<const v1::CollectiveRow*> LargestRows(const v1::CollectiveReport& report);

// Where the answers' ranks sat: nodes, the most ranks on one node, and the
// bound of their hops inside a node (each node's LocalBound over its ranks'
// reported GPU links; the lowest node's; gbps 0 when a rank did not say).
// `nodes` is how many nodes took part. Rails are the caller's to add.
RunShape ShapeOfRun(const std::vector<RankAnswer>& answers, size_t nodes);

// probe "nccl", detail.collective; verdict left to FinalizeResult. SKIP
// when rank 0 skipped (no CUDA, NCCL or GPU). `rank_order` is recorded.
v1::ProbeResult JudgeCollectiveRun(const std::vector<RankAnswer>& answers,
                                   const NcclLogContext& context, const std::string& rank_order);

}  // namespace nodeprobe::nccl
