// File: peer_judgement.h
// Judges a run's transfers against each other, where no bar from the
// profile or the hardware can, with the run's own noise (peer_stats.h):
//   TRANSFER_BELOW_PEERS   below transfer.min_fraction_of_peers (0.90) of
//                          the peers' reference for the same kind
//                          (transport, op, size), by more than the noise
//   TRANSFER_ASYMMETRIC    below transfer.min_fraction_of_reverse (0.80) of
//                          the same rail's other direction, by more than
//                          the noise of both
//   MEASUREMENT_TOO_NOISY  the run's spread for a kind is above
//                          transfer.max_spread (0.15): gaps smaller than
//                          the noise are not judged, and it says so
// Nothing is FAIL from one sample: a gap (these two, and the node's own
// TRANSFER_BELOW_EXPECTED) is FAIL only when a retest of the same place
// (from, to, rail) reproduces it; a gap the retest did not reproduce, or
// that was not retested, is WARN with the figures.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// The pair's bandwidth (its first row's average, when complete and not a
// latency test) and its kind ("TCP STREAM_BW 131072 B"): only pairs of one
// kind are compared.
bool BandwidthFigure(const v1::PairResult& p, std::string* kind, double* gbps);
// The same for a latency test: its median in us.
bool LatencyFigure(const v1::PairResult& p, std::string* kind, double* median_us);
// The first row's interval variation (0: unknown).
double FigureCv(const v1::PairResult& p);

// A direction of a rail to measure again.
struct PairPlace {
  std::string from;
  std::string to;
  std::string rail;
};

// The directions whose first measurement shows a gap that could be a FAIL
// (asymmetry, below the expected bar, below the peers where that FAILs):
// each is measured again before anything is concluded. Asymmetry asks for
// both directions.
std::vector<PairPlace> PlacesToRetest(const Profile& profile, const v1::StageRun& run);

// Adds the findings to the pairs' results and the run, and re-derives the
// pairs' verdicts (profile exceptions included).
void JudgeTransfersAgainstPeers(const Profile& profile, v1::StageRun* run);

}  // namespace nodeprobe::coordinator
