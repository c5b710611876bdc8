// File: faults_profile.h
// The profile's `faults:` section: how fast hardware error counters may
// grow before a stage says so (aer_counters.h).
//   faults:
//     aer_corrected_max_per_hour: 6   # a PCIe function's corrected errors
//     nvlink_errors_max_per_hour: 60  # an NVLink's CRC and replay errors
#pragma once

namespace nodeprobe {

struct Profile;

struct FaultRules {
  static constexpr char kSection[] = "faults";  // its top-level key
  double aer_corrected_max_per_hour = 6;
  double nvlink_errors_max_per_hour = 60;
};

}  // namespace nodeprobe
