// File: collective_peers.h
// Each node's own collectives (its nccl probe over its local GPUs) judged
// against the other nodes' in the same run, where the profile sets no bar
// and the hardware's bound is loose: the same collective at the same size
// over the same number of ranks is expected to move about the same on
// every node of a fleet built alike.
//   NCCL_BUSBW_BELOW_PEERS  busbw at the largest size below
//                           nccl.min_fraction_of_peers (0.9) of the median
//                           of the other nodes (at least two others): WARN
// A node's slow NVLink or PCIe switch shows here even when the fleet's
// numbers are all far from the hardware's bound.
#pragma once

#include "nodeprobe/v1/service.pb.h"
#include "probes/framework/profile.h"

namespace nodeprobe::coordinator {

// Adds the findings to the nodes' nccl results and re-derives their and
// their reports' verdicts (profile exceptions included).
void JudgeCollectivesAgainstPeers(const Profile& profile, v1::StageRun* run);

}  // namespace nodeprobe::coordinator
