// File: throttled_fs.h
// A real filesystem whose bandwidth the test sets: an ext4 image on a loop
// device, mounted under the test's directory, and a block-I/O cgroup of
// its own (cgroup v2 io.max, else v1 blkio.throttle) that limits that
// device for the processes put into it. All undone in the destructor.
// Needs root, loop devices and mkfs.ext4: Available() says why not.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace nodeprobe::lab {

class ThrottledFs {
 public:
  static absl::Status Available();
  // An image of `mib` MiB under `dir` (dir/fs.img, mounted on dir/mnt).
  explicit ThrottledFs(const std::string& dir, int mib = 512);
  ~ThrottledFs();
  ThrottledFs(const ThrottledFs&) = delete;
  ThrottledFs& operator=(const ThrottledFs&) = delete;

  // OK once made; else what failed (for ASSERT).
  const absl::Status& status() const { return status_; }
  const std::string& mount() const { return mnt_; }
  const std::string& loop_device() const { return loop_; }
  const std::string& cgroup() const { return cgroup_; }

  // Limits the cgroup's writes and reads on the device (bytes/s).
  void Throttle(uint64_t write_bps, uint64_t read_bps);
  // Moves a process (and the children it starts after) into the cgroup.
  void Add(pid_t pid);
  // What is on the filesystem besides mkfs's lost+found.
  std::vector<std::string> LeftBehind() const;

 private:
  std::string mnt_, loop_, device_, cgroup_;
  bool mounted_ = false;
  bool v2_ = false;
  absl::Status status_;
};

}  // namespace nodeprobe::lab
