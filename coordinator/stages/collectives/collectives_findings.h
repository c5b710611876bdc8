// File: collectives_findings.h
// The finding codes the collectives stage raises, declared beside it (np_findings
// in this folder's CMakeLists): each a typed constant that call sites name
// (findings::kX.code), listed by collectives_findings.cc for the one table.
#pragma once

#include "probes/framework/finding_codes.h"

namespace nodeprobe::findings {

inline constexpr FindingCode kNcclNotRun = {
    "NCCL_NOT_RUN", v1::WARN, "collective stage",
    "no collective across the nodes: some node ran no local NCCL",
    "fix the nccl probe on those nodes first (driver, NCCL, GPUs)"};

}  // namespace nodeprobe::findings
