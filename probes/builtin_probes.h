// File: builtin_probes.h
// The one explicit list of the probes built into nodeprobe, in the order a
// stage runs them. Adding a probe is one folder under probes/ (its
// np_probe_library() links it here and includes its header: see
// probes/CMakeLists.txt) plus its Register() line in builtin_probes.cc.
#pragma once

#include "probes/framework/probe_registry.h"

namespace nodeprobe {

ProbeRegistry BuiltinProbes();

}  // namespace nodeprobe
