// File: failure_findings.h
// The finding codes the failure stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by failure_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kFailureNotRecovered = {
    "FAILURE_NOT_RECOVERED", v1::FAIL, "failure stage",
    "no good transfer soon enough after the link came back",
    "check the link's state, its routes/ARP and the switch port after the flap, and that the "
    "agent comes back after a restart (systemctl status nodeprobe-agent)"};

inline constexpr FindingCode kFailureHung = {
    "FAILURE_HUNG", v1::FAIL, "failure stage",
    "a transfer neither finished nor failed when its link went away",
    "a transfer must end (or fail) by itself when its path or peer goes away: check the "
    "transfer engine's idle timeout on that node"};

}  // namespace nodeprobe::findings
