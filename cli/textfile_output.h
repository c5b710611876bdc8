// File: textfile_output.h
// The Prometheus textfile for node_exporter's textfile collector, written by
// `run --textfile DIR` (the nightly sweep): stage and probe verdicts, finding
// counts by code, and every measurement as a gauge. The exposition format is
// a few lines of text; no library is pulled in for it.
#pragma once

#include <string>

#include "absl/status/status.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe::cli {

std::string RenderPrometheus(const v1::StageReport& report);

// Writes DIR/nodeprobe.prom atomically (temporary file, then rename), so the
// collector never reads half a file.
absl::Status WriteTextfile(const std::string& dir, const v1::StageReport& report);

}  // namespace nodeprobe::cli
