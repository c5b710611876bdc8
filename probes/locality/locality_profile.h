// File: locality_profile.h
// The profile's `locality:` section.
//   locality:
//     rail_optimized: true   # every GPU must have a PIX/PXB NIC (FAIL, not WARN)
#pragma once

namespace nodeprobe {

struct Profile;

struct LocalityRules {
  static constexpr char kSection[] = "locality";  // its top-level key
  bool rail_optimized = false;
};

}  // namespace nodeprobe
