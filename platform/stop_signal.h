// The stop of a loop that waits in poll(): a server's accept or receive
// loop (transfer serve, mtu serve), the agent's kernel-log watch. Any
// thread raises it; the loop's wait wakes at once (an eventfd polled beside
// the loop's own descriptor) instead of at its next timeout.
#pragma once

#include <atomic>

#include "platform/socket.h"

namespace nodeprobe::platform {

class StopSignal {
 public:
  // Made unraised; ok() is false when the kernel gave no eventfd (then the
  // owner's Start() fails with it).
  StopSignal();
  StopSignal(const StopSignal&) = delete;
  StopSignal& operator=(const StopSignal&) = delete;

  bool ok() const { return fd_.valid(); }
  void Raise();
  bool raised() const { return raised_; }

  enum class Woken { kReadable, kStopped, kTimedOut, kFailed };
  // Waits until `fd` is readable or hung up, the signal is raised, or
  // `timeout_ms` passes (-1: no timeout). A signal wins over a readable
  // fd; an interrupted wait is kTimedOut; kFailed leaves errno set.
  Woken WaitReadable(int fd, int timeout_ms) const;
  // Sleeps up to `timeout_ms`; true when the signal was raised.
  bool WaitRaised(int timeout_ms) const;

 private:
  Fd fd_;
  std::atomic<bool> raised_{false};
};

}  // namespace nodeprobe::platform
