// File: cabling_findings.h
// The finding codes the cabling probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; cabling_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kCablingRailMismatch = {
    "CABLING_RAIL_MISMATCH", v1::FAIL, "cabling",
    "a port is cabled (LLDP) to a switch the profile's rail plan (cabling.expect) does not "
    "expect",
    "check the cable at both ends against the rail plan (a swapped pair of rails shows as two "
    "mismatches); fix the plan if the switch was renamed"};
inline constexpr FindingCode kCablingNoNeighbor = {
    "CABLING_NO_NEIGHBOR", v1::WARN, "cabling",
    "the rail plan names an interface on which no neighbour was heard (LLDP, or the IB fabric "
    "one hop out)",
    "Ethernet: check that the link is up, that the switch sends LLDP on that port, and that "
    "lldpd watches the interface (lldpcli show interfaces); InfiniBand: check that the port is"
    " ACTIVE (ibstat), that a subnet manager answers, and run as root (the SMPs need "
    "/dev/infiniband/umad*)"};
inline constexpr FindingCode kCablingNoLldpd = {
    "CABLING_NO_LLDPD", v1::ERROR, "cabling",
    "the profile has a rail plan but the node's lldpd cannot be read",
    "install and start lldpd on the node (apt-get install lldpd), or point "
    "NODEPROBE_LLDPD_SOCKET at its socket"};

}  // namespace nodeprobe::findings
