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
std::vector<std::string> WorkloadLines(const v1::WorkloadReport& w);
// A soak's directions: direction, figures, mean, min, max (Gb/s), spread,
// drift (percent).
std::vector<std::vector<std::string>> SoakRows(const v1::SoakReport& soak);
// A storage storm's headline, and a row per node (node, write Gb/s,
// checkpoint s, read Gb/s, error).
std::string StormHeadline(const v1::StorageStormReport& storm);
std::vector<std::vector<std::string>> StormRows(const v1::StorageStormReport& storm);

// A run's record; with_gate: its production gate first (a campaign prints
// its own gate across the runs, then each run without one).
std::string RenderRun(const v1::StageRun& run, bool color, bool with_gate = true);
std::string MarkdownRun(const v1::StageRun& run, bool with_gate = true);
// The production gate (coordinator/acceptance_gate.h): the headline, then
// one line per item (text), or a table (Markdown).
std::string RenderGate(const v1::GateChecklist& gate);
// A record's title words: the stage's verdict and the gate's state
// together ("PASS, production gate incomplete: 2 not met (...)"), so a
// reader who stops at the first word does not take a stage's PASS for an
// acceptance.
std::string VerdictAndGate(v1::Verdict verdict, const v1::GateChecklist& gate);
std::string MarkdownGate(const v1::GateChecklist& gate);

}  // namespace nodeprobe::cli
