// File: failure_profile.h
// The profile's `failure:` section: the failure stage's timings
// (failure_stage.h).
//   failure:
//     link_down_s: 3       # how long the link stays down
//     max_recover_s: 30    # a good transfer within this of the link's return
#pragma once

namespace nodeprobe {

struct Profile;

struct FailureRules {
  static constexpr char kSection[] = "failure";  // its top-level key
  double link_down_s = 3;
  double max_recover_s = 30;
};

}  // namespace nodeprobe
