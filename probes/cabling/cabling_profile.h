// File: cabling_profile.h
// The profile's `cabling:` section: the rail plan, each port -> a glob on
// the switch it must be cabled to.
//   cabling:
//     expect:
//       ens1f0np0: "leaf-rail-0-*"     # a netdev (LLDP)
//       mlx5_4:1: "ib-leaf-rail-4-*"   # an InfiniBand port (the fabric one hop out)
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace nodeprobe {

struct Profile;

struct CablingPlan {
  static constexpr char kSection[] = "cabling";             // its top-level key
  std::vector<std::pair<std::string, std::string>> expect;  // port, switch-name glob
};

}  // namespace nodeprobe
