// File: table_renderer.h
// The human view of a StageReport: a verdict line per probe, each probe's
// typed detail (version matrix, port table), its findings with the fix, and
// key measurements. Colour only when asked (the caller checks for a TTY).
#pragma once

#include <string>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

std::string RenderStageTable(const v1::StageReport& report, bool color);

}  // namespace nodeprobe::cli
