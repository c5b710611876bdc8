// The command-line side of the probes' declared arguments
// (probes/framework/probe_argument.h): `preflight` and `run` make one flag
// per declared argument, and a run refuses an argument none of its probes
// reads. No probe argument is written into the CLI by hand.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "probes/framework/probe.h"
#include "probes/framework/probe_registry.h"

namespace nodeprobe::cli {

// One flag for each distinct argument with a flag that `probes` declare; a
// value given lands in (*given)[argument.name], checked by its declaration.
// The help names the probes that read it.
void AddProbeArgumentFlags(CLI::App* cmd, const std::vector<Probe*>& probes,
                           std::map<std::string, std::string>* given);

// "" when each argument in `given` is read by one of `running`; else one
// line: the flag, the probes of `registry` that read it, and `hint` (how to
// include them).
std::string CheckArgumentsFitProbes(const std::map<std::string, std::string>& given,
                                    const std::vector<Probe*>& running,
                                    const ProbeRegistry& registry, const std::string& hint);

}  // namespace nodeprobe::cli
