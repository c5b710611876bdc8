#include "cli/record_diff_output.h"

#include <functional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/safe_text.h"
#include "coordinator/acceptance_gate.h"
#include "coordinator/record_diff.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

std::string StateName(v1::GateState s) {
  return s == v1::GATE_STATE_UNSPECIFIED ? "absent" : coordinator::GateStateName(s);
}

std::string Value(double v) { return absl::StrFormat("%.4g", v); }

}  // namespace

std::vector<DiffSection> DiffSections(const v1::RecordDiff& d) {
  using Section = DiffSection;
  std::vector<Section> out;
  Section nodes{"Nodes", {"node", "change"}, {}};
  for (const std::string& n : d.nodes_added()) nodes.rows.push_back({n, "added"});
  for (const std::string& n : d.nodes_removed()) nodes.rows.push_back({n, "removed"});
  out.push_back(std::move(nodes));
  for (const auto& [title, changes] :
       {std::pair{"Versions", &d.versions()},
        std::pair{"Topology, cabling and configuration", &d.configuration()}}) {
    Section s{title, {"node", "what", "change"}, {}};
    for (const v1::RecordDiff::NodeChange& c : *changes) {
      s.rows.push_back({c.node(), c.what(), absl::StrCat(c.old_value(), " -> ", c.new_value())});
    }
    out.push_back(std::move(s));
  }
  Section gate{"Production gate items whose state changed", {"item", "state", "why (new)"}, {}};
  for (const v1::RecordDiff::GateChange& g : d.gate()) {
    gate.rows.push_back({g.title(),
                         absl::StrCat(StateName(g.old_state()), " -> ", StateName(g.new_state())),
                         g.why()});
  }
  out.push_back(std::move(gate));
  Section figures{absl::StrFormat("Figures that moved beyond their spread (%d of %d compared; "
                                  "at least %.0f%%)",
                                  d.figures_size(), d.figures_compared(), 100 * d.min_change()),
                  {"node", "figure", "value", "move"},
                  {}};
  for (const v1::RecordDiff::FigureChange& f : d.figures()) {
    figures.rows.push_back({f.node(), f.figure(),
                            absl::StrCat(Value(f.old_value()), " -> ", Value(f.new_value())),
                            FigureMove(f)});
  }
  out.push_back(std::move(figures));
  return out;
}

std::string DiffOutcome(const v1::RecordDiff& d) {
  if (coordinator::Unchanged(d)) return "nothing changed beyond the spread";
  return coordinator::Worse(d) ? "the new record is worse (exit 1)"
                               : "changed, nothing worse (exit 0)";
}

std::string DiffSide(const v1::RecordDiff::Side& s) {
  return absl::StrCat(s.run_id(), " (", s.stage(), s.started().empty() ? "" : ", ", s.started(),
                      ", ", s.nodes(), " nodes): ", VerdictName(s.verdict()), ", gate ",
                      s.gate() == v1::GATE_MET ? "complete" : "incomplete");
}

std::string FigureMove(const v1::RecordDiff::FigureChange& f) {
  return absl::StrFormat("%+.1f%% (%s; spread %.1f%%)", 100 * f.change(),
                         f.worse() ? "worse" : "better", 100 * f.spread());
}

std::string TextDiff(const v1::RecordDiff& d) {
  std::string out = absl::StrCat("Old: ", EscapeControls(DiffSide(d.old())), "\n",
                                 "New: ", EscapeControls(DiffSide(d.new_())), "\n");
  for (const DiffSection& s : DiffSections(d)) {
    absl::StrAppend(&out, "\n", s.title, s.rows.empty() ? ": none\n" : ":\n");
    for (const std::vector<std::string>& row : s.rows) {
      std::vector<std::string> cells;
      for (const std::string& c : row) cells.push_back(EscapeControls(c));
      absl::StrAppend(&out, "  ", absl::StrJoin(cells, "  "), "\n");
    }
  }
  absl::StrAppend(&out, "\n", DiffOutcome(d), "\n");
  return out;
}

std::string MarkdownDiff(const v1::RecordDiff& d) {
  std::string out =
      absl::StrCat("# What changed between two acceptance records\n\n",
                   "- Old: ", MarkdownCell(DiffSide(d.old())),
                   "\n- New: ", MarkdownCell(DiffSide(d.new_())), "\n- ", DiffOutcome(d), "\n");
  for (const DiffSection& s : DiffSections(d)) {
    absl::StrAppend(&out, "\n## ", s.title, "\n\n");
    if (s.rows.empty()) {
      absl::StrAppend(&out, "None.\n");
      continue;
    }
    absl::StrAppend(&out, "| ", absl::StrJoin(s.head, " | "), " |\n|");
    for (size_t i = 0; i < s.head.size(); ++i) absl::StrAppend(&out, "---|");
    absl::StrAppend(&out, "\n");
    for (const std::vector<std::string>& row : s.rows) {
      std::vector<std::string> cells;
      for (const std::string& c : row) cells.push_back(MarkdownCell(c));
      absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
    }
  }
  return out;
}

}  // namespace nodeprobe::cli
