// File: cluster_profile.h
// The profile's `cluster:` section: how the cluster stage blames (blame.h).
//   cluster:
//     suspect_share: 0.5     # suspect: low with more than this share of partners
//     retest: true           # retest suspects against a node that passed all
//     latency: false         # also a latency test per pair and direction
//     max_latency_ratio: 2.1 # a latency above this x the run's best is bad
#pragma once

namespace nodeprobe {

struct Profile;

struct ClusterRules {
  static constexpr char kSection[] = "cluster";  // its top-level key
  double suspect_share = 0.5;
  bool retest = true;
  bool latency = false;
  double max_latency_ratio = 2.1;
};

}  // namespace nodeprobe
