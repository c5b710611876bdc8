// File: environment.h
// What the commands take from the environment they run in: the host's name
// (the default node name) and whether stdout wants colour.
#pragma once

#include <string>

namespace nodeprobe::controlplane {

std::string HostName();
// A terminal, and NO_COLOR unset (https://no-color.org).
bool StdoutWantsColor();

}  // namespace nodeprobe::controlplane
