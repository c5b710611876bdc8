// File: congestion_profile.h
// The profile's `congestion:` section: what the congestion stage runs and
// how it judges (congestion_stage.h).
//   congestion:
//     patterns: [incast, all_to_all]   # what it runs (default both)
//     group_size: 8                    # nodes per group
//     incast_senders: 7                # senders per incast (default: the group's others)
//     min_fairness: 0.8                # Jain's index over the flows, below: WARN
//     max_latency_ratio: 10            # p99 under load / idle p99, above: WARN
#pragma once

namespace nodeprobe {

struct Profile;

struct CongestionRules {
  static constexpr char kSection[] = "congestion";  // its top-level key
  bool incast = true;
  bool all_to_all = true;
  int group_size = 8;
  int incast_senders = 0;  // 0: every other node of the group
  double min_fairness = 0.8;
  double max_latency_ratio = 10;
};

}  // namespace nodeprobe
