// File: restart_in_place.h
// The failure stage's agent restart (task RestartAgent, --allow-disruptive):
// the agent replaces itself with a fresh run of its own binary and command
// line (execve of /proc/self/exe), as a supervisor would restart it after a
// crash: its streams close, the workers other threads started die with
// those threads (PR_SET_PDEATHSIG), and the new process registers again.
// Descriptors are closed at the exec so its listeners can bind again.
#pragma once

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace nodeprobe::agent {

// Waits `grace` (for the answer to go out), then execs; returns only when
// the exec failed, with why.
absl::Status RestartInPlace(absl::Duration grace);

}  // namespace nodeprobe::agent
