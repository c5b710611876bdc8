// File: rdma_profile.h
// The profile's `rdma:` section: what the rdma-devices probe expects of
// each port.
//   rdma:
//     expected_rate_gbps: 400          # each ACTIVE port's rate
//     expected_link_layer: InfiniBand  # or Ethernet
//     error_counters: warn             # warn | fail: non-zero error counters
#pragma once

#include <optional>
#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

struct Profile;

struct RdmaExpectations {
  static constexpr char kSection[] = "rdma";  // its top-level key
  std::optional<double> rate_gbps;
  std::optional<std::string> link_layer;
  v1::Verdict error_counters = v1::WARN;
};

}  // namespace nodeprobe
