// File: peer_judgement.h
// Judges a run's transfers against each other, where no bar from the
// profile or the hardware can: every measured pair/direction/rail is
// compared with the best of the same kind (transport, op, size) in the
// run, and each direction of a rail with the other direction.
//   TRANSFER_BELOW_PEERS  below transfer.min_fraction_of_best_pair (0.93,
//                         ClusterKit's rule) of the best: WARN, or FAIL
//                         with transfer.below_peers: fail
//   TRANSFER_ASYMMETRIC   below transfer.min_fraction_of_reverse (0.80) of
//                         the same rail's other direction: FAIL, naming the
//                         slow direction
#pragma once

#include <string>

#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// The pair's bandwidth (its first row's average, when complete and not a
// latency test) and its kind ("TCP STREAM_BW 131072 B"): only pairs of one
// kind are compared.
bool BandwidthFigure(const v1::PairResult& p, std::string* kind, double* gbps);
// The same for a latency test: its median in us.
bool LatencyFigure(const v1::PairResult& p, std::string* kind, double* median_us);

// Adds the findings to the pairs' results and re-derives their verdicts
// (profile exceptions included).
void JudgeTransfersAgainstPeers(const Profile& profile, v1::StageRun* run);

}  // namespace nodeprobe::coordinator
