// File: blame.h
// Who is to blame for a cluster run's low transfers (and high latencies). Input: every
// directional measurement of the run (nodes and rails as indices, a kind
// so that only like is compared with like). A measurement is low below
// transfer.min_fraction_of_peers of its kind's peer reference by more than
// the noise (peer_stats.h: the reference is a median over each node's
// rail, not the best pair, and a gap must be larger than the run's spread
// or the transfer's own); blame is relative to the run, so a fabric that
// is slow everywhere blames nobody here (the absolute bars on each pair
// say so instead).
//
// Explaining the low measurements, greedily:
//   1. per (node, rail): the share of its partners on that rail with whom
//      it measured low (either direction). The unit with the highest share
//      above `suspect_share` (0.5; at least 2 partners, so that a single
//      pair never convicts one end) is a suspect; its low measurements are
//      explained and leave the counts; repeat. Removing what a suspect
//      explains keeps a second bad node from dragging healthy partners
//      over the share (two bad nodes of four: each good node is low with
//      2 of 3 partners until the first bad node is taken out).
//   2. a node that is suspect on every rail it measured is a NODE suspect;
//      otherwise its suspect rails are RAIL suspects.
//   3. low measurements left unexplained are LINK suspects (one per
//      unordered pair and rail).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "coordinator/peer_stats.h"

namespace nodeprobe::coordinator {

struct Measurement {
  int from = 0;
  int to = 0;
  int rail = 0;
  std::string kind;  // transport/op/size: comparable measurements
  double gbps = 0;   // bandwidth; or, with `latency`, the median in us
  bool latency = false;
  double cv = 0;  // the transfer's own interval variation (0: unknown)
};

struct Suspect {
  enum Kind { kNode, kRail, kLink };
  Kind kind = kNode;
  int node = 0;
  int other = -1;  // kLink: the pair's other node
  int rail = -1;   // kRail, kLink (kNode: every rail)
  int low = 0;     // partners it was low with
  int partners = 0;
  std::vector<int> evidence;  // indices of the low measurements explained
};

struct BlameRules {
  double min_fraction_of_peers = 0.90;
  double suspect_share = 0.5;
  // A latency is bad above this many times its kind's reference.
  double max_latency_ratio = 2.1;
  double noise_sigmas = 3;
};

// Each kind's peer reference, its units being (node, rail): a rail is
// its own link, so one slow rail is one outlier among the node's rails.
std::map<std::string, PeerReference> ReferencesOf(const std::vector<Measurement>& m);

// Whether `x` is bad against its kind's reference.
bool IsLow(const Measurement& x, const PeerReference& ref, const BlameRules& rules);

std::vector<Suspect> FindSuspects(const std::vector<Measurement>& m, const BlameRules& rules);

}  // namespace nodeprobe::coordinator
