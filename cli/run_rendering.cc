#include "cli/run_rendering.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/safe_text.h"
#include "cli/table_renderer.h"
#include "coordinator/acceptance_gate.h"
#include "probes/framework/coverage.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_judge.h"
#include "probes/transfer/transfer_runner.h"

namespace nodeprobe::cli {

// "path MTU 1500 of 9000" or "stream_bw 9.41 Gb/s".
std::string PairFigure(const v1::PairResult& p) {
  if (p.result().has_mtu()) {
    const auto& paths = p.result().mtu().paths();
    if (paths.empty()) return "path MTU ?";
    return absl::StrCat("path MTU ", paths[0].path_mtu(), " of ", paths[0].iface_mtu());
  }
  const auto& t = p.result().transfer();
  const bool latency = transfer::IsLatencyOp(t.op());
  std::string figure =
      latency ? absl::StrFormat("%.2f us", t.results_size() ? t.results(0).latency().median_us() : 0)
              : absl::StrFormat("%.2f Gb/s", t.results_size() ? t.results(0).bw_avg_gbps() : 0);
  std::string bar = t.expected() > 0
                        ? absl::StrFormat(" (bar %.2f from %s)", t.expected(), t.expected_source())
                        : " (no bar: " + t.expected_basis() + ")";
  return absl::StrCat(transfer::OpName(t.op()), " ", figure, bar);
}

// One line per collective: its largest size's figures.
std::vector<std::string> CollectiveLines(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::CollectiveRow* row : nccl::LargestRows(r.collective())) {
    out.push_back(absl::StrFormat("%s at %llu B: %.1f us, algbw %.2f GB/s, busbw %.2f GB/s, "
                                  "slowest rank %d",
                                  row->collective(), static_cast<unsigned long long>(row->size()),
                                  row->time_us(), row->algbw_gbps(), row->busbw_gbps(),
                                  row->slowest_rank()));
  }
  return out;
}

// "r2 " for a cluster round's pair, "retest " for a suspect's retest.
std::string RoundTag(const v1::PairResult& p) {
  if (p.retest()) return "retest ";
  return p.round() > 0 ? absl::StrCat("r", p.round(), " ") : "";
}

std::string SuspectLine(const v1::Suspect& s) {
  std::string who = s.kind() == "link" ? absl::StrCat(s.node(), "<->", s.other_node(), " [",
                                                      s.rail(), "]")
                    : s.kind() == "rail" ? absl::StrCat(s.node(), " [", s.rail(), "]")
                                         : s.node();
  std::string line = absl::StrCat(s.kind(), " ", who);
  if (s.kind() != "link") absl::StrAppend(&line, ": low with ", s.low(), " of ", s.partners(), " partners");
  if (!s.retested()) return absl::StrCat(line, "; not retested");
  return absl::StrCat(line, "; retest",
                      s.known_good().empty() ? "" : " against " + s.known_good(), ": ",
                      s.confirmed() ? "confirmed" : "not reproduced");
}

// "incast 3 -> gpu-a [tcp]: 0.29 Gb/s (bar none), fairness 0.98, p99 52 -> 880 us"
std::string CongestionLine(const v1::CongestionResult& c) {
  std::string line = absl::StrFormat(
      "%s %d -> %s [%s]: %.2f Gb/s (%s), fairness %.2f", c.pattern(), c.flows_size(),
      c.receiver(), c.rail(), c.aggregate_gbps(),
      c.expected_gbps() > 0 ? absl::StrFormat("bar %.2f", c.expected_gbps()) : "no bar",
      c.fairness());
  if (c.idle_latency().p99_us() > 0) {
    absl::StrAppend(&line, absl::StrFormat(", p99 %.0f -> %.0f us", c.idle_latency().p99_us(),
                                           c.loaded_latency().p99_us()));
  }
  return line;
}

// The workload stage's figures, a line each: what ran, the step, the late
// rank, then each kind of op.
std::vector<std::string> WorkloadLines(const v1::WorkloadReport& w) {
  std::vector<std::string> out = {
      absl::StrCat("shape ", w.shape(), ": ", w.layout(), "; ", w.library(), " ", w.version(),
                   w.transport().empty() ? "" : " over " + w.transport(), ", ", w.steps(),
                   " steps measured", w.measurements() > 1 ? " (twice)" : "")};
  if (w.steps() == 0) return out;
  out.push_back(absl::StrFormat(
      "step p50 %.2f ms, p99 %.2f ms, max %.2f ms, cv %.1f%%; communication %.0f%% of the step",
      w.step_p50_ms(), w.step_p99_ms(), w.step_max_ms(), 100 * w.step_cv(), 100 * w.comm_share()));
  out.push_back(w.late_rank() >= 0
                    ? absl::StrFormat("late rank %d on %s: %.2f ms per step, latest in %.0f%% of "
                                      "the steps (bar %.2f ms, noise %.2f ms)",
                                      w.late_rank(), w.late_node(), w.late_ms(),
                                      100 * w.late_share(), w.skew_bar_ms(), w.noise_ms())
                    : absl::StrFormat("no late rank (bar %.2f ms)", w.skew_bar_ms()));
  if (w.has_burst()) {
    out.push_back(absl::StrFormat("%s burst from step %d for %d steps%s", w.burst().kind(),
                                  w.burst().at_step(), w.burst().steps(),
                                  w.burst().path().empty() ? "" : " into " + w.burst().path()));
  }
  for (const v1::WorkloadReport::Phase& p : w.phases()) {
    out.push_back(absl::StrFormat(
        "%s the burst (%d steps): step p50 %.2f ms, p99 %.2f ms (%.2fx), max %.2f ms; exposed "
        "communication p99 %.2f ms",
        p.name(), p.steps(), p.step_p50_ms(), p.step_p99_ms(), p.slowdown(), p.step_max_ms(),
        p.exposed_p99_ms()));
  }
  for (const v1::WorkloadReport::PartRun& r : w.bisection()) {
    out.push_back(absl::StrFormat("again on %s: step p50 %.2f ms (%s)",
                                  absl::StrJoin(r.nodes(), ","), r.step_p50_ms(),
                                  r.slow() ? "slow" : "fine"));
  }
  for (const v1::WorkloadReport::OpTime& o : w.ops()) {
    out.push_back(absl::StrCat(
        absl::StrFormat("%s %s %s: %.3f ms median", o.group(), o.op(), ByteSize(o.bytes()),
                        o.median_ms()),
        o.isolated_ms() > 0 ? absl::StrFormat(" (alone %.3f ms)", o.isolated_ms()) : "",
        absl::StrFormat(", %d per step", o.count())));
  }
  return out;
}

std::string RenderGate(const v1::GateChecklist& gate) {
  // Owners, rollback and the rest come from the profile: one line each.
  std::string out =
      absl::StrCat(EscapeControls(gate.headline()), "\n  organisational items from the profile: ",
                   EscapeControls(gate.profile()), "\n");
  for (const v1::GateItem& g : gate.items()) {
    absl::StrAppendFormat(&out, "  %-8s %s: %s\n", coordinator::GateStateName(g.state()),
                          EscapeControls(g.item()), EscapeControls(g.why()));
    for (const std::string& v : g.values()) {
      absl::StrAppend(&out, "             ", EscapeControls(v), "\n");
    }
    if (g.nodes_not_covered_size() > 0) {
      absl::StrAppend(
          &out, "             not covered: ", absl::StrJoin(g.nodes_not_covered(), ", "), "\n");
    }
    for (const std::string& w : g.waivers()) {
      absl::StrAppend(&out, "             ", EscapeControls(w), "\n");
    }
  }
  return TerminalSafe(out);
}

std::string MarkdownGate(const v1::GateChecklist& gate) {
  std::string out =
      absl::StrCat("## Production gate: ", MarkdownCell(gate.headline()), "\n\n",
                   "Organisational items from the profile: ", MarkdownCell(gate.profile()), "\n\n",
                   "| item | state | why | rests on |\n|---|---|---|---|\n");
  for (const v1::GateItem& g : gate.items()) {
    std::vector<std::string> why = {g.why()};
    why.insert(why.end(), g.values().begin(), g.values().end());
    if (g.nodes_not_covered_size() > 0) {
      why.push_back(absl::StrCat("not covered: ", absl::StrJoin(g.nodes_not_covered(), ", ")));
    }
    why.insert(why.end(), g.waivers().begin(), g.waivers().end());
    absl::StrAppend(&out, "| ", MarkdownCell(g.title()), " | **",
                    coordinator::GateStateName(g.state()), "** | ",
                    MarkdownCell(absl::StrJoin(why, "; ")), " | ",
                    MarkdownCell(absl::StrJoin(g.evidence(), "; ")), " |\n");
  }
  return out;
}

std::vector<std::vector<std::string>> SoakRows(const v1::SoakReport& soak) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::SoakSeries& s : soak.series()) {
    rows.push_back({absl::StrCat(s.from_node(), " -> ", s.to_node(), " [", s.rail(), "]"),
                    absl::StrCat(s.points_size()), absl::StrFormat("%.2f", s.mean_gbps()),
                    absl::StrFormat("%.2f", s.min_gbps()), absl::StrFormat("%.2f", s.max_gbps()),
                    absl::StrFormat("%.1f%%", 100 * s.spread()),
                    absl::StrFormat("%+.1f%%", 100 * s.drift())});
  }
  return rows;
}

std::string StormHeadline(const v1::StorageStormReport& s) {
  return absl::StrFormat(
      "storage storm on %s: %d nodes at once, %.1f s to the last fsync, aggregate %.2f Gb/s; "
      "%s alone %.1f s (%.2f Gb/s); slowest %s %.1f s (%.1fx alone)",
      s.path(), s.nodes_size(), s.storm_s(), s.aggregate_write_gbps(), s.alone_node(),
      s.alone_checkpoint_s(), s.alone_write_gbps(), s.slowest_node(), s.slowest_checkpoint_s(),
      s.slowdown());
}

std::vector<std::vector<std::string>> StormRows(const v1::StorageStormReport& s) {
  std::vector<std::vector<std::string>> rows;
  for (const v1::StorageStormNode& n : s.nodes()) {
    if (!n.error().empty()) {
      rows.push_back({n.node(), "-", "-", "-", n.error()});
      continue;
    }
    rows.push_back({n.node(), absl::StrFormat("%.2f", n.write_gbps()),
                    absl::StrFormat("%.2f", n.checkpoint_s()),
                    absl::StrFormat("%.2f", n.read_seq_gbps()), ""});
  }
  return rows;
}

namespace {
// A Markdown table of `rows` under `header`, every cell escaped.
std::string MarkdownTable(const std::vector<std::string>& header,
                          const std::vector<std::vector<std::string>>& rows) {
  std::string out = absl::StrCat("| ", absl::StrJoin(header, " | "), " |\n|");
  for (size_t i = 0; i < header.size(); ++i) absl::StrAppend(&out, "---|");
  absl::StrAppend(&out, "\n");
  for (const std::vector<std::string>& r : rows) {
    std::vector<std::string> cells;
    for (const std::string& c : r) cells.push_back(MarkdownCell(c));
    absl::StrAppend(&out, "| ", absl::StrJoin(cells, " | "), " |\n");
  }
  return out;
}

std::string SoakTable(const v1::SoakReport& soak) {
  std::string out = absl::StrFormat("\nsoak: %.0f s, %d rounds\n", soak.duration_s(),
                                    static_cast<int>(soak.intervals()));
  absl::StrAppend(&out, absl::StrFormat("  %-36s %7s %9s %9s %9s %7s %7s\n", "direction", "figures",
                                        "mean", "min", "max", "spread", "drift"));
  for (const std::vector<std::string>& r : SoakRows(soak)) {
    absl::StrAppend(&out, absl::StrFormat("  %-36s %7s %9s %9s %9s %7s %7s\n", r[0], r[1], r[2],
                                          r[3], r[4], r[5], r[6]));
  }
  return out;
}

std::string StormTable(const v1::StorageStormReport& storm) {
  std::string out = absl::StrCat("\n", StormHeadline(storm), "\n");
  absl::StrAppend(&out, absl::StrFormat("  %-24s %10s %12s %10s\n", "node", "write Gb/s",
                                        "checkpoint s", "read Gb/s"));
  for (const std::vector<std::string>& r : StormRows(storm)) {
    absl::StrAppend(&out,
                    absl::StrFormat("  %-24s %10s %12s %10s %s\n", r[0], r[1], r[2], r[3], r[4]));
  }
  return out;
}
}  // namespace

std::string VerdictAndGate(v1::Verdict verdict, const v1::GateChecklist& gate) {
  return absl::StrCat(VerdictName(verdict), ", production ", gate.headline());
}

std::string RenderRun(const v1::StageRun& run, bool color, bool with_gate) {
  std::string out =
      absl::StrCat("run ", run.run_id(), ": ", StageName(run.stage()), " on ",
                   absl::StrJoin(run.nodes(), ", "), ": ",
                   with_gate ? VerdictAndGate(run.verdict(), coordinator::GateOf({run}))
                             : VerdictName(run.verdict()),
                   " (", run.state(), ") — ", CoverageLine(CoverageOf(run), "results"), "\n");
  absl::StrAppend(&out, "judged by profile: ",
                  run.profile().source().empty() ? "none" : run.profile().source(), "\n");
  if (!run.operator_identity().empty()) {
    absl::StrAppend(&out, "run by: ", run.operator_identity(), "\n");
  }
  if (with_gate) absl::StrAppend(&out, "\n", RenderGate(coordinator::GateOf({run})));
  for (const v1::StageReport& r : run.node_reports()) {
    absl::StrAppend(&out, "\n", RenderStageTable(r, color));
  }
  if (run.pairs_size() > 0) {
    absl::StrAppend(&out, "\nbetween the nodes\n");
    for (const v1::PairResult& p : run.pairs()) {
      const std::string figure = PairFigure(p);
      absl::StrAppend(&out, "  ", RoundTag(p), p.from_node(), " -> ", p.to_node(), " [",
                      p.rail(), "] ", figure, "  ", VerdictName(p.result().verdict()), "\n");
      for (const v1::Finding& f : p.result().findings()) {
        absl::StrAppend(&out, "    ", VerdictName(f.severity()), " ", f.code(), ": ",
                        f.message(), "\n");
        if (const std::string note = ExceptionNote(f); !note.empty()) {
          absl::StrAppend(&out, "      ", note, "\n");
        }
      }
    }
  }
  if (run.soak().series_size() > 0) absl::StrAppend(&out, SoakTable(run.soak()));
  if (run.storage_storm().nodes_size() > 0) absl::StrAppend(&out, StormTable(run.storage_storm()));
  if (run.rounds() > 0) {
    absl::StrAppend(&out, "\ncluster: ", run.pattern(), ", ", run.rounds(), " rounds, ",
                    run.suspects_size(), " suspects\n");
    for (const v1::Suspect& s : run.suspects()) absl::StrAppend(&out, "  ", SuspectLine(s), "\n");
  }
  for (const v1::FailureResult& f : run.failures()) {
    absl::StrAppend(&out, "\nfailure ", f.scenario(), " on ", f.node(), " [", f.rail(), "] toward ",
                    f.peer(), ": ", VerdictName(f.verdict()), "\n");
    absl::StrAppend(&out, absl::StrFormat("  detected in %.2f s; transfer %s; traffic again %.2f s "
                                          "after the link's return\n",
                                          f.detect_s(), f.transfer_outcome(), f.recover_s()));
    for (const std::string& a : f.actions()) absl::StrAppend(&out, "  ", a, "\n");
    for (const v1::Finding& x : f.findings()) {
      absl::StrAppend(&out, "    ", VerdictName(x.severity()), " ", x.code(), ": ", x.message(),
                      "\n");
    }
  }
  if (run.congestion_size() > 0) absl::StrAppend(&out, "\ncongestion\n");
  for (const v1::CongestionResult& c : run.congestion()) {
    absl::StrAppend(&out, "  ", CongestionLine(c), "  ", VerdictName(c.verdict()), "\n");
    for (const v1::Finding& f : c.findings()) {
      absl::StrAppend(&out, "    ", VerdictName(f.severity()), " ", f.code(), ": ", f.message(),
                      "\n");
    }
  }
  for (const v1::ProbeResult& c : run.collectives()) {
    absl::StrAppend(&out, "\nNCCL across the nodes: ", c.collective().nranks(), " ranks, NCCL ",
                    c.collective().nccl_version(), " (", c.collective().rank_order(), "): ",
                    VerdictName(c.verdict()), c.reason().empty() ? "" : " " + c.reason(), "\n");
    for (const std::string& line : CollectiveLines(c)) absl::StrAppend(&out, "  ", line, "\n");
    for (const v1::Finding& f : c.findings()) {
      absl::StrAppend(&out, "    ", VerdictName(f.severity()), " ", f.code(), ": ", f.message(),
                      "\n");
    }
  }
  if (run.has_workload()) {
    absl::StrAppend(&out, "\nworkload: ", VerdictName(run.workload().verdict()), "\n");
    for (const std::string& line : WorkloadLines(run.workload())) {
      absl::StrAppend(&out, "  ", line, "\n");
    }
  }
  for (const v1::Finding& f : run.findings()) {
    absl::StrAppend(&out, "\n", VerdictName(f.severity()), " ", f.code(), " [", f.device(),
                    "]: ", f.message(), "\n  fix: ", f.remediation(), "\n");
  }
  return TerminalSafe(out);
}

namespace {

std::string MarkdownWorkload(const v1::WorkloadReport& w) {
  std::string out = absl::StrCat("\n## workload: **", VerdictName(w.verdict()), "**\n\n");
  for (const std::string& line : WorkloadLines(w)) absl::StrAppend(&out, "- ", MarkdownCell(line), "\n");
  return out;
}

// The record's title and scope: verdict and gate state first.
std::string MarkdownHeading(const v1::StageRun& run, bool with_gate) {
  const std::string title =
      with_gate ? absl::StrCat(": ", VerdictAndGate(run.verdict(), coordinator::GateOf({run})))
                : "";
  return absl::StrCat(
      "# nodeprobe run ", MarkdownCell(run.run_id() + title), "\n\n",
      "- stage: ", StageName(run.stage()),
      "\n- nodes: ", MarkdownCell(absl::StrJoin(run.nodes(), ", ")), "\n- verdict: **",
      VerdictName(run.verdict()), "** (", MarkdownCell(run.state()), ")\n",
      "- judged: ", CoverageLine(CoverageOf(run), "results"), "\n",
      "- profile: ", run.profile().source().empty() ? "none" : MarkdownCell(run.profile().source()),
      "\n\n");
}

}  // namespace

// Every text from the run goes through MarkdownCell: a node name or a
// message cannot break a table or add markup.
std::string MarkdownRun(const v1::StageRun& run, bool with_gate) {
  std::string out = MarkdownHeading(run, with_gate);
  if (with_gate) absl::StrAppend(&out, MarkdownGate(coordinator::GateOf({run})), "\n");
  absl::StrAppend(&out, "| node | probe | verdict | findings |\n|---|---|---|---|\n");
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) {
      std::vector<std::string> codes;
      for (const auto& f : p.findings()) {
        const std::string note = ExceptionNote(f);
        codes.push_back(note.empty() ? f.code() : absl::StrCat(f.code(), " (", note, ")"));
      }
      absl::StrAppend(&out, "| ", MarkdownCell(r.node()), " | ", MarkdownCell(p.probe()), " | ", VerdictName(p.verdict()),
                      " | ", MarkdownCell(absl::StrJoin(codes, ", ")), " |\n");
    }
  }
  if (run.pairs_size()) {
    absl::StrAppend(&out, "\n| round | from | to | rail | measured | verdict |\n"
                          "|---|---|---|---|---|---|\n");
    for (const v1::PairResult& p : run.pairs()) {
      absl::StrAppend(&out, "| ", MarkdownCell(RoundTag(p)), " | ", MarkdownCell(p.from_node()), " | ", MarkdownCell(p.to_node()), " | ",
                      MarkdownCell(p.rail()), " | ", MarkdownCell(PairFigure(p)), " | ", VerdictName(p.result().verdict()),
                      " |\n");
    }
  }
  for (const v1::FailureResult& f : run.failures()) {
    absl::StrAppend(&out, "\n## failure: ", MarkdownCell(f.scenario()), " on ", MarkdownCell(f.node()), " (", MarkdownCell(f.rail()),
                    "): **", VerdictName(f.verdict()), "**\n\n- run by: ", MarkdownCell(f.operator_identity()),
                    "\n- transfer: ", MarkdownCell(f.transfer_outcome()), "\n");
    for (const std::string& a : f.actions()) absl::StrAppend(&out, "- ", MarkdownCell(a), "\n");
  }
  if (run.congestion_size() > 0) {
    absl::StrAppend(&out, "\n| congestion | verdict | findings |\n|---|---|---|\n");
    for (const v1::CongestionResult& c : run.congestion()) {
      std::vector<std::string> codes;
      for (const v1::Finding& f : c.findings()) codes.push_back(f.code());
      absl::StrAppend(&out, "| ", MarkdownCell(CongestionLine(c)), " | ", VerdictName(c.verdict()), " | ",
                      MarkdownCell(absl::StrJoin(codes, ", ")), " |\n");
    }
  }
  if (run.has_workload()) absl::StrAppend(&out, MarkdownWorkload(run.workload()));
  if (run.soak().series_size() > 0) {
    absl::StrAppend(
        &out,
        absl::StrFormat("\nsoak: %.0f s, %d rounds\n\n", run.soak().duration_s(),
                        static_cast<int>(run.soak().intervals())),
        MarkdownTable({"direction", "figures", "mean Gb/s", "min", "max", "spread", "drift"},
                      SoakRows(run.soak())));
  }
  if (run.storage_storm().nodes_size() > 0) {
    absl::StrAppend(&out, "\n", MarkdownCell(StormHeadline(run.storage_storm())), "\n\n",
                    MarkdownTable({"node", "write Gb/s", "checkpoint s", "read Gb/s", "error"},
                                  StormRows(run.storage_storm())));
  }
  if (run.rounds() > 0) {
    absl::StrAppend(&out, "\ncluster: ", MarkdownCell(run.pattern()), ", ", run.rounds(), " rounds\n\n");
    for (const v1::Suspect& s : run.suspects()) absl::StrAppend(&out, "- ", MarkdownCell(SuspectLine(s)), "\n");
  }
  for (const v1::ProbeResult& c : run.collectives()) {
    absl::StrAppend(&out, "\nNCCL across the nodes: ", c.collective().nranks(), " ranks (",
                    MarkdownCell(c.collective().rank_order()), "): **", VerdictName(c.verdict()), "**\n\n");
    for (const std::string& line : CollectiveLines(c)) absl::StrAppend(&out, "- ", MarkdownCell(line), "\n");
    for (const v1::Finding& f : c.findings()) {
      absl::StrAppend(&out, "- **", MarkdownCell(f.code()), "**: ", MarkdownCell(f.message()), "\n");
    }
  }
  for (const v1::Finding& f : run.findings()) {
    absl::StrAppend(&out, "\n- **", MarkdownCell(f.code()), "** (", MarkdownCell(f.device()), "): ", MarkdownCell(f.message()), "\n");
  }
  return out;
}

}  // namespace nodeprobe::cli
