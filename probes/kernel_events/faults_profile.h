// File: faults_profile.h
// The profile's `faults:` section: how fast hardware error counters may
// grow before a stage says so (aer_counters.h).
//   faults:
//     aer_corrected_max_per_hour: 6   # a PCIe function's corrected errors
#pragma once

namespace nodeprobe {

struct Profile;

struct FaultRules {
  double aer_corrected_max_per_hour = 6;
};

const FaultRules& FaultRulesOf(const Profile& profile);
FaultRules& MutableFaultRules(Profile& profile);

}  // namespace nodeprobe
