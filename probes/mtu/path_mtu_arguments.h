// path-mtu's argument: the peer it measures to (`preflight --active
// --mtu-peer HOST[:PORT]`), declared once (probe_argument.h).
#pragma once

#include <string>
#include <string_view>

#include "probes/framework/probe_argument.h"

namespace nodeprobe::mtu {

// "" for an IPv4 address with or without a port, else what is wrong.
std::string CheckMtuPeer(std::string_view text);

inline constexpr ProbeArgument kMtuPeer = {
    .name = "mtu_peer",
    .flag = "--mtu-peer",
    .value_name = "IPv4[:PORT]",
    .help =
        "With --active: IPv4[:PORT] of a peer running `nodeprobe mtu serve` (or its agent) "
        "on the job's network",
    .check = &CheckMtuPeer,
};

}  // namespace nodeprobe::mtu
