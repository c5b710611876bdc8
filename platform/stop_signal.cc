#include "platform/stop_signal.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>

namespace nodeprobe::platform {

StopSignal::StopSignal() : fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

void StopSignal::Raise() {
  raised_ = true;
  const uint64_t one = 1;
  if (fd_.valid()) (void)!write(fd_.get(), &one, sizeof(one));
}

StopSignal::Woken StopSignal::WaitReadable(int fd, int timeout_ms) const {
  if (raised_) return Woken::kStopped;
  pollfd fds[2] = {{fd, POLLIN, 0}, {fd_.get(), POLLIN, 0}};
  const int n = poll(fds, 2, timeout_ms);
  if (n < 0) return errno == EINTR ? Woken::kTimedOut : Woken::kFailed;
  if (fds[1].revents != 0 || raised_) return Woken::kStopped;
  return n == 0 ? Woken::kTimedOut : Woken::kReadable;
}

bool StopSignal::WaitRaised(int timeout_ms) const {
  if (raised_) return true;
  pollfd s{fd_.get(), POLLIN, 0};
  return poll(&s, 1, timeout_ms) > 0 || raised_;
}

}  // namespace nodeprobe::platform
