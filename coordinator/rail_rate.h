// File: rail_rate.h
// What a registered rail carries, for bars the coordinator sets itself (the
// congestion stage's per-receiver bar, the NCCL rail bound): the agent's
// goodput (the transfer bar's line data rate x per-packet share), else the
// raw sysfs rate of an older agent, said so in the basis.
#pragma once

#include <string>

#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::coordinator {

// Gb/s per direction; 0 when neither is known. `basis` (may be null) gets
// how the figure was derived.
double RailGoodputGbps(const v1::Rail& rail, std::string* basis);

}  // namespace nodeprobe::coordinator
