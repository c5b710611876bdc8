// File: record_diff_output.h
// `nodeprobe evidence --diff OLD NEW` as a reader sees it: text for a
// terminal, Markdown for a ticket (coordinator/record_diff.h computes it;
// JSON is the message's protobuf mapping; HTML is html_report.h's
// HtmlDiff). Every string from the records goes through safe_text.h.
#pragma once

#include <string>
#include <vector>

#include "nodeprobe/v1/record_diff.pb.h"

namespace nodeprobe::cli {

// The diff's tables, in the order every format prints them: nodes,
// versions, topology/cabling/configuration, gate items, figures.
struct DiffSection {
  std::string title;
  std::vector<std::string> head;
  std::vector<std::vector<std::string>> rows;
};
std::vector<DiffSection> DiffSections(const v1::RecordDiff& diff);
// "nothing changed beyond the spread", "the new record is worse (exit 1)", ...
std::string DiffOutcome(const v1::RecordDiff& diff);

std::string TextDiff(const v1::RecordDiff& diff);
std::string MarkdownDiff(const v1::RecordDiff& diff);

// "r-7 (TWO_NODE, 2026-11-02T10:00:00Z, 4 nodes): PASS, gate met".
std::string DiffSide(const v1::RecordDiff::Side& side);
// "-19.9% (worse; spread 5.0%)" for one figure's move.
std::string FigureMove(const v1::RecordDiff::FigureChange& f);

}  // namespace nodeprobe::cli
