// File: inventory_findings.h
// The finding codes the inventory probe raises, declared beside the code that raises
// them: each a typed constant (code, severity or its rule, owner, meaning,
// remediation). Call sites name the constant (findings::kX.code), never
// the string; inventory_findings.cc lists them for the one table
// (finding_codes.h) that `nodeprobe findings`, the man page and the JSON
// print.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kVersionMismatch = {
    "VERSION_MISMATCH", v1::FAIL, "inventory",
    "a component's version differs from the profile's pin",
    "install the pinned version named in the message, or update the profile's versions: pin"};
inline constexpr FindingCode kVersionNotCaptured = {
    "VERSION_NOT_CAPTURED", v1::PASS, "inventory",
    "a pinned component is not in the capture being judged",
    "capture the node with its /etc, /proc and library versions"};

}  // namespace nodeprobe::findings
