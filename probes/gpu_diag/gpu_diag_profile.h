// File: gpu_diag_profile.h
// The profile's `gpu_diag:` section (gpu_diag_probe.h).
//   gpu_diag:
//     level: 2    # dcgmi diag -r LEVEL: 1 seconds, 2 minutes, 3 ~30 min, 4 hours
#pragma once

namespace nodeprobe {

struct Profile;

struct GpuDiagRules {
  int level = 2;
};

const GpuDiagRules& GpuDiagRulesOf(const Profile& profile);

}  // namespace nodeprobe
