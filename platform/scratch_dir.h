// File: scratch_dir.h
// A directory of our own under someone else's filesystem (a checkpoint or
// dataset mount) that is gone afterwards, whatever happens to us:
//  - made with mkdtemp under `parent`, so it never reuses or touches what
//    is there;
//  - removed when the ScratchDir is destroyed;
//  - removed also when this process is killed (SIGKILL at a task deadline,
//    the worker's group kill, an OOM kill): a guardian child, in its own
//    process group (set by both sides of the fork, so it is out before
//    Create returns) so the group kill does not reach it, deaf to SIGHUP
//    and SIGINT, waits for a pipe whose
//    only writer is this process and, when the pipe ends, executes
//    `rm -rf --one-file-system -- DIR` (argv built before the fork, nothing
//    but async-signal-safe calls between fork and exec).
// Named `prefix`HOST-PID-XXXXXX, so that when both the owner and its
// guardian die (a node's power cut, both SIGKILLed) a later Create on the
// same host finds the ones whose process is gone and removes them; another
// host's are never touched (its PIDs mean nothing here).
#pragma once

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace nodeprobe::platform {

class ScratchDir {
 public:
  // `parent`/`prefix`HOST-PID-XXXXXX (stale ones of this host removed
  // first); an error names the parent and the reason (missing, not a
  // directory, not writable).
  static absl::StatusOr<ScratchDir> Create(const std::string& parent, const std::string& prefix);
  // Removes `parent`/`prefix`HOST-PID-* of this host whose PID is no
  // longer a process here; how many.
  static int RemoveStale(const std::string& parent, const std::string& prefix);
  ScratchDir(ScratchDir&& o) noexcept;
  ScratchDir& operator=(ScratchDir&&) = delete;
  ~ScratchDir();

  const std::string& path() const { return path_; }
  pid_t guardian() const { return guardian_; }

 private:
  ScratchDir(std::string path, pid_t guardian, int pipe_w)
      : path_(std::move(path)), guardian_(guardian), pipe_w_(pipe_w) {}

  std::string path_;
  pid_t guardian_ = -1;
  int pipe_w_ = -1;
};

}  // namespace nodeprobe::platform
