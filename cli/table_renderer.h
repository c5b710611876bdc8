// File: table_renderer.h
// The human view of a StageReport: a verdict line per probe, each probe's
// typed detail (version matrix, port table), its findings with the fix, and
// key measurements. Colour only when asked (the caller checks for a TTY).
#pragma once

#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

std::string RenderStageTable(const v1::StageReport& report, bool color);

// The tail of a single probe's view (`transfer run`, `mtu probe`,
// `nccl-log`): its verdict with the reason, then each finding with its fix.
std::string RenderVerdictAndFindings(const v1::ProbeResult& result);
// Only the findings, each with its fix.
std::string RenderFindings(const v1::ProbeResult& result);

}  // namespace nodeprobe::cli
