// File: preflight_profile.h
// The profile's `preflight:` section, read by the pre-flight probes
// (memlock, shm, nccl-env, rdma-exposure, interfaces).
//   preflight:
//     expect_rdma: true     # the job must have usable RDMA here
//     memlock_min_mb: 4096  # else the NCCL estimate (job_view.h)
//     shm_min_mb: 1024      # else the NCCL estimate
//     interface_mtu: 9000   # secondary interfaces at least this MTU
//     pkey: 0x8001          # the job's InfiniBand partition
#pragma once

#include <cstdint>

namespace nodeprobe {

struct Profile;

struct PreflightRules {
  static constexpr char kSection[] = "preflight";  // its top-level key
  bool expect_rdma = false;
  double memlock_min_mb = 0;  // 0: estimated from the ranks
  double shm_min_mb = 0;      // 0: estimated from the ranks
  int interface_mtu = 0;      // 0: not judged
  int pkey = -1;              // 15-bit partition; -1: not judged
};

}  // namespace nodeprobe
