// File: mtu_profile.h
// The profile's `mtu:` section: the MTU every checked interface must have,
// and interfaces checked besides the RDMA netdevs.
//   mtu:
//     expected: 9000
//     interfaces: [eth0, bond0]
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace nodeprobe {

struct Profile;

struct MtuExpectations {
  static constexpr char kSection[] = "mtu";  // its top-level key
  std::optional<int> expected;
  std::vector<std::string> interfaces;
};

}  // namespace nodeprobe
