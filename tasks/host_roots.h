// Where a task's probes read the host from, on the wire (v1::HostRoots) and
// in a probe's context (platform::HostPaths): the one copy between them,
// used by `run` (sending its flags), the agent (its capture) and the worker
// (receiving).
#pragma once

#include "nodeprobe/v1/task.pb.h"
#include "platform/host_paths.h"

namespace nodeprobe::tasks {

v1::HostRoots ToHostRoots(const platform::HostPaths& paths);
// Empty roots keep the live defaults.
platform::HostPaths FromHostRoots(const v1::HostRoots& roots);

}  // namespace nodeprobe::tasks
