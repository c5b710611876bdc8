#include "agent/restart_in_place.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"

namespace nodeprobe::agent {

absl::Status RestartInPlace(absl::Duration grace) {
  // The command line as it was started, NUL-separated.
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  const std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Each argument ends in a NUL; empty ones (--metrics-listen "") are kept.
  std::vector<std::string> args = absl::StrSplit(raw, absl::ByChar('\0'));
  if (!args.empty() && args.back().empty()) args.pop_back();
  if (args.empty() || raw.empty()) return absl::InternalError("cannot read /proc/self/cmdline");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  absl::SleepFor(grace);
  // Every descriptor but stdio closes at the exec: the new agent binds its
  // health, metrics and MTU ports again.
  if (syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 65536; ++fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
  }
  execv("/proc/self/exe", argv.data());
  return absl::InternalError(absl::StrCat("exec /proc/self/exe: ", strerror(errno)));
}

}  // namespace nodeprobe::agent
