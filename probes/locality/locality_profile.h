// File: locality_profile.h
// The profile's `locality:` section.
//   locality:
//     rail_optimized: true   # every GPU must have a PIX/PXB NIC (FAIL, not WARN)
#pragma once

namespace nodeprobe {

struct Profile;

struct LocalityRules {
  bool rail_optimized = false;
};

const LocalityRules& LocalityRulesOf(const Profile& profile);
LocalityRules& MutableLocalityRules(Profile& profile);

}  // namespace nodeprobe
