// The storage probe's argument, set by the storage storm stage and never by
// a user (no flag): how many nodes write the same shared filesystem at once,
// so the probe checks room for all of them (probe_argument.h).
#pragma once

#include "probes/framework/probe_argument.h"

namespace nodeprobe::storage {

inline constexpr ProbeArgument kWritersNodes = {
    .name = "storage_writers_nodes",
    .value_name = "N",
    .help = "Nodes writing the same shared filesystem at once (the storm); 1: this node alone",
    .min = 1,
    .max = 1000000,
};

}  // namespace nodeprobe::storage
