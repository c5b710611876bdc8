// File: run_rendering.h
// A stored run (v1::StageRun) for people: the table `report` and `run`
// print, Markdown, and the one-line figures the other formats share.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe::cli {

// "path MTU 1500 of 9000" or "stream_bw 9.41 Gb/s (bar 9.30 from hardware)".
std::string PairFigure(const v1::PairResult& p);
// One line per collective: its largest size's figures.
std::vector<std::string> CollectiveLines(const v1::ProbeResult& r);
// "r2 " for a cluster round's pair, "retest " for a suspect's retest.
std::string RoundTag(const v1::PairResult& p);
std::string SuspectLine(const v1::Suspect& s);
std::string CongestionLine(const v1::CongestionResult& c);

std::string RenderRun(const v1::StageRun& run, bool color);
std::string MarkdownRun(const v1::StageRun& run);

}  // namespace nodeprobe::cli
