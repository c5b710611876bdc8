#include "platform/netns.h"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::platform {

absl::Status EnterNetns(const std::string& spec) {
  std::string path;
  int pid = 0;
  if (spec.find('/') != std::string::npos) {
    path = spec;
  } else if (absl::SimpleAtoi(spec, &pid) && pid > 0) {
    path = absl::StrCat("/proc/", pid, "/ns/net");
  } else {
    path = absl::StrCat("/var/run/netns/", spec);
  }
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return absl::NotFoundError(absl::StrCat(
        "network namespace '", spec, "' not found (", path, ": ", strerror(errno),
        "); give a name from `ip netns list`, a PID, or a path"));
  }
  int rc = setns(fd, CLONE_NEWNET);
  int err = errno;
  close(fd);
  if (rc != 0) {
    return absl::PermissionDeniedError(absl::StrCat(
        "cannot enter network namespace '", spec, "': ", strerror(err),
        " (needs CAP_SYS_ADMIN)"));
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::platform
