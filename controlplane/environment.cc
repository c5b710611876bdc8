#include "controlplane/environment.h"

#include <stdlib.h>
#include <unistd.h>

namespace nodeprobe::controlplane {

std::string HostName() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "localhost";
  return buf;
}

bool StdoutWantsColor() { return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == nullptr; }

}  // namespace nodeprobe::controlplane
