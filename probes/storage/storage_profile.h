// File: storage_profile.h
// The profile's `storage:` section (storage_probe.h).
//   storage:
//     paths: [/mnt/ckpt, /data]        # where checkpoints and datasets live
//     shard_mb: 1024                   # each writer's checkpoint shard
//     writers: 8                       # default: one per GPU, else 8
//     block_kb: 1024                   # bytes per write and read call
//     metadata_files: 10000            # small files per metadata layout
//     checkpoint_write_min_gbps: 40    # bars (Gb/s); absent: measured, not judged
//     checkpoint_max_s: 120
//     read_min_gbps: 40
//     metadata_p99_max_ms: 5
#pragma once

#include <string>
#include <vector>

namespace nodeprobe {

struct Profile;

struct StorageRules {
  static constexpr char kSection[] = "storage";  // its top-level key
  std::vector<std::string> paths;  // none: the probe SKIPs
  double shard_mb = 1024;
  int writers = 0;  // 0: one per GPU, else 8
  int block_kb = 1024;
  int metadata_files = 10000;
  // 0: not judged.
  double checkpoint_write_min_gbps = 0;
  double checkpoint_max_s = 0;
  double read_min_gbps = 0;
  double metadata_p99_max_ms = 0;
};

}  // namespace nodeprobe
