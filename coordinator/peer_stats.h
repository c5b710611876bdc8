// File: peer_stats.h
// The one statistic every multi-node stage judges its figures with (two-
// node, cluster, congestion, collectives across nodes): what is normal for
// this run, and how noisy it is.
//
// Reference: the median of what each node can do as a sender and as a
// receiver, a node's capability in a role being its best partner's figure
// (the second best with four partners or more, so one lucky sample does not
// set it). Not the run's best pair: the maximum of all noisy samples is
// biased far upward, so a fixed fraction of it blames whatever is merely
// average. Not the plain median of all measurements either: one bad node
// takes part in 2/n of them (half of a 4-node run), and their median lands
// between the bad and the good. Per node and role, one bad node (or one
// node's bad transmit side) is one outlier among 2n capabilities; two bad
// nodes of four still leave the good pair's figure in the reference.
//
// Spread: the relative median absolute deviation (stats::RelativeMad: x 1.4826, the MAD's
// scale for a normal distribution) of the measurements between sound ends,
// an end being sound in its role when its capability is at least half the
// reference. A fault is not noise: left in, one bad node of four (half the
// measurements) would pass for scatter and hide itself.
//
// A figure is low when it is below `min_fraction` of the reference AND the
// gap is larger than `sigmas` x its noise (the larger of the run's spread
// and the transfer's own interval-to-interval variation): on a quiet RDMA
// fabric the fraction decides, on a CPU-bound TCP run the noise does, and
// a run whose spread passes transfer.max_spread says it is too noisy to
// judge small gaps instead of blaming anyone.
#pragma once

#include <string>
#include <vector>

namespace nodeprobe::coordinator {

struct PeerSample {
  int from = 0;
  int to = 0;
  double value = 0;  // Gb/s, or us for latency
  double cv = 0;     // the measurement's own coefficient of variation (0: unknown)
};

struct PeerReference {
  double value = 0;   // the reference
  double spread = 0;  // relative robust spread (0.1 = 10%)
  // The median of the measurements' own interval variation: what one
  // transfer's figure moves by on its own (0: unknown). A spread from a
  // dozen measurements can come out low by chance; this floor cannot.
  double cv = 0;
  size_t samples = 0;
  size_t nodes = 0;
};

// `latency`: lower is better.
PeerReference ReferenceOf(const std::vector<PeerSample>& samples, bool latency = false);

// The relative noise a judgement of `cv`'s measurement allows for: the
// largest of the run's spread, its typical transfer's variation and the
// measurement's own.
double NoiseOf(const PeerReference& ref, double cv);

// Below `min_fraction` of the reference by more than `sigmas` x the noise.
bool LowAgainst(double value, double cv, const PeerReference& ref, double min_fraction,
                double sigmas);
// Latency: above `max_ratio` x the reference by more than the noise.
bool HighAgainst(double value, double cv, const PeerReference& ref, double max_ratio,
                 double sigmas);
// `value` against `other` (the same rail the other way): below
// `min_fraction` of it, by more than `sigmas` x the noise of both.
bool LowAgainstOther(double value, double cv, double other, double other_cv, double spread,
                     double min_fraction, double sigmas);

}  // namespace nodeprobe::coordinator
