// File: soak_profile.h
// The profile's `soak:` section: how a soak (run --soak) judges figures
// over time (soak.h).
//   soak:
//     max_spread: 0.15   # a direction's coefficient of variation over the soak
//     max_drift: 0.10    # how much slower the last third may be than the first
#pragma once

namespace nodeprobe {

struct Profile;

struct SoakRules {
  static constexpr char kSection[] = "soak";  // its top-level key
  double max_spread = 0.15;
  double max_drift = 0.10;
};

}  // namespace nodeprobe
