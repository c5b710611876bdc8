// File: netns.h
// Entering the network namespace a workload uses, so probes see the same
// interfaces and routes it does (a pod's namespace from the host).
#pragma once

#include <string>

#include "absl/status/status.h"

namespace nodeprobe::platform {

// `spec`: a name under /var/run/netns, a path to a namespace file, or a
// PID (its /proc/PID/ns/net). Call before any thread starts: setns applies
// to the calling thread only.
absl::Status EnterNetns(const std::string& spec);

}  // namespace nodeprobe::platform
