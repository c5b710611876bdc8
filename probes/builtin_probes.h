// File: builtin_probes.h
// The one explicit list of the probes built into nodeprobe. Adding a probe
// is one folder under probes/ plus one line in builtin_probes.cc.
#pragma once

#include "probes/framework/probe_registry.h"

namespace nodeprobe {

ProbeRegistry BuiltinProbes();

}  // namespace nodeprobe
