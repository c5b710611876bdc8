// The profile's `guard:` section: the busy-node guard (platform/node_busy.h)
// as the stage runner and the task worker apply it.
//   guard:
//     intrusive_in_sweep: false   # `run --sweep` runs GPU copies, collectives,
//                                 # loopback transfers too
#pragma once

namespace nodeprobe {

struct GuardRules {
  static constexpr char kSection[] = "guard";  // its top-level key
  // `run --sweep` (the scheduled sweep) runs intrusive probes too.
  bool intrusive_in_sweep = false;
};

}  // namespace nodeprobe
