#include "coordinator/acceptance_gate.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/acceptance_profile.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

// One result of a run that speaks to a measured item.
struct Source {
  const v1::StageRun* run;
  std::vector<std::string> nodes;
  v1::Verdict verdict;
  std::string skipped;  // why, when it was skipped
  // Its findings, where a profile exception may have waived one.
  const google::protobuf::RepeatedPtrField<v1::Finding>* findings = nullptr;
};

// A measured item: what it is, where the record shows it, how a run would
// supply it, and whether every node must be covered (a node's versions or
// topology) or some are enough (a failure test on one link).
struct Measured {
  const char* item;
  const char* title;
  const char* section;
  const char* to_run;
  bool every_node;
  std::vector<Source> sources;
};

void AddNodeResults(const std::vector<v1::StageRun>& runs, const std::set<std::string>& probes,
                    Measured* m) {
  for (const v1::StageRun& run : runs) {
    for (const v1::StageReport& r : run.node_reports()) {
      for (const v1::ProbeResult& p : r.results()) {
        if (probes.count(p.probe()))
          m->sources.push_back({&run, {r.node()}, p.verdict(), p.reason(), &p.findings()});
      }
    }
  }
}

void AddPairs(const std::vector<v1::StageRun>& runs, bool mtu, Measured* m) {
  for (const v1::StageRun& run : runs) {
    for (const v1::PairResult& p : run.pairs()) {
      if (mtu ? !p.result().has_mtu() : !p.result().has_transfer()) continue;
      m->sources.push_back({&run,
                            {p.from_node(), p.to_node()},
                            p.result().verdict(),
                            p.result().reason(),
                            &p.result().findings()});
    }
  }
}

// Per run: "r-7 (two-node): 6 results, 4 PASS, 2 WARN".
std::vector<std::string> EvidenceLines(const std::vector<const Source*>& used) {
  std::vector<std::string> out;
  std::map<std::string, std::map<v1::Verdict, int>> per_run;
  std::vector<const v1::StageRun*> order;
  for (const Source* s : used) {
    if (!per_run.count(s->run->run_id())) order.push_back(s->run);
    ++per_run[s->run->run_id()][s->verdict];
  }
  for (const v1::StageRun* run : order) {
    int total = 0;
    std::vector<std::string> counts;
    for (const auto& [verdict, n] : per_run[run->run_id()]) {
      total += n;
      counts.push_back(absl::StrCat(n, " ", VerdictName(verdict)));
    }
    out.push_back(absl::StrCat(run->run_id(), " (", StageName(run->stage()),
                               "): ", absl::StrJoin(counts, ", ")));
  }
  return out;
}

// The findings a profile exception let through (FAIL -> WARN), and those
// whose exception had expired (not applied: still FAIL), in words.
struct Waivers {
  std::vector<std::string> applied, expired;
};

Waivers WaiversOf(const std::vector<const Source*>& used) {
  Waivers out;
  std::set<std::string> seen;
  for (const Source* s : used) {
    if (s->findings == nullptr) continue;
    for (const v1::Finding& f : *s->findings) {
      if (f.exception_reason().empty() && !f.exception_expired()) continue;
      const std::string line = absl::StrCat(
          f.code(), f.device().empty() ? "" : absl::StrCat(" on ", f.device()), " (",
          absl::StrJoin(s->nodes, " -> "), ") waived by ",
          f.exception_owner().empty() ? "no owner" : f.exception_owner(), " until ",
          f.exception_expires().empty() ? "no date" : f.exception_expires(),
          f.exception_reason().empty() ? "" : absl::StrCat(": ", f.exception_reason()));
      if (!seen.insert(line).second) continue;
      (f.exception_expired() ? out.expired : out.applied).push_back(line);
    }
  }
  return out;
}

v1::GateItem Judge(const Measured& m, const std::set<std::string>& all_nodes) {
  v1::GateItem g;
  g.set_item(m.item);
  g.set_title(m.title);
  g.set_section(m.section);
  std::vector<const Source*> used;
  std::set<std::string> covered;
  std::vector<std::string> bad;
  for (const Source& s : m.sources) {
    if (s.verdict == v1::SKIP || s.verdict == v1::VERDICT_UNSPECIFIED) continue;
    used.push_back(&s);
    covered.insert(s.nodes.begin(), s.nodes.end());
    if (s.verdict == v1::FAIL || s.verdict == v1::ERROR) {
      bad.push_back(absl::StrCat(absl::StrJoin(s.nodes, " -> "), " ", VerdictName(s.verdict)));
    }
  }
  if (used.empty()) {  // every node uncovered: the state says it
    g.set_state(v1::GATE_NOT_RUN);
    g.set_why(m.sources.empty() ? absl::StrCat("nothing measured it: ", m.to_run)
                                : absl::StrCat("every result skipped (", m.sources.front().skipped,
                                               "): ", m.to_run));
    return g;
  }
  for (const std::string& n : all_nodes) {
    if (!covered.count(n)) g.add_nodes_not_covered(n);
  }
  std::set<std::string> runs;
  for (const Source* s : used) {
    if (runs.insert(s->run->run_id()).second) g.add_runs(s->run->run_id());
  }
  for (std::string& line : EvidenceLines(used)) g.add_evidence(std::move(line));
  const Waivers w = WaiversOf(used);
  for (const std::string& line : w.applied) g.add_waivers(line);
  if (!bad.empty()) {
    g.set_state(v1::GATE_NOT_MET);
    g.set_why(absl::StrCat(
        bad.size(), " of ", used.size(), " FAIL or ERROR: ",
        absl::StrJoin(bad.begin(), bad.begin() + std::min<size_t>(bad.size(), 4), "; "),
        bad.size() > 4 ? "; ..." : "",
        w.expired.empty() ? "" : absl::StrCat("; expired waiver: ", w.expired.front())));
  } else if (m.every_node && g.nodes_not_covered_size() > 0) {
    g.set_state(v1::GATE_NOT_MET);
    g.set_why(absl::StrCat("not measured on every node: ", m.to_run));
  } else if (!w.applied.empty()) {
    g.set_state(v1::GATE_WAIVED);
    g.set_why(absl::StrCat("met only under ", w.applied.size(),
                           w.applied.size() == 1 ? " waiver: " : " waivers: ", w.applied.front(),
                           w.applied.size() > 1 ? "; ..." : ""));
  } else {
    g.set_state(v1::GATE_MET);
    g.set_why(absl::StrCat(used.size(), " results on ", covered.size(), " nodes, none FAIL"));
  }
  return g;
}

// An organisational item: met with the values as written, or not met
// naming the keys that would supply the missing ones.
v1::GateItem Stated(const char* item, const char* title, const std::string& key,
                    const std::vector<std::pair<std::string, std::string>>& keyed_values) {
  v1::GateItem g;
  g.set_item(item);
  g.set_title(title);
  g.set_section("profile");
  g.set_key(key);
  std::vector<std::string> missing;
  for (const auto& [k, v] : keyed_values) {
    if (v.empty()) {
      missing.push_back(k);
    } else {
      g.add_values(v);
    }
  }
  if (missing.empty()) {
    g.set_state(v1::GATE_MET);
    g.set_why("as the profile states it");
  } else {
    g.set_state(v1::GATE_NOT_MET);
    g.set_why(absl::StrCat("the profile has no ", absl::StrJoin(missing, ", ")));
  }
  return g;
}

// The newest run's profile (a campaign's runs may each carry one).
struct GateProfile {
  Profile profile;
  std::string from;  // "FILE (run R)", or why there is none
};
GateProfile ProfileOf(const std::vector<v1::StageRun>& runs) {
  GateProfile out;
  const v1::StageRun* newest = nullptr;
  for (const v1::StageRun& r : runs) {
    if (r.profile().yaml().empty()) continue;
    if (!newest || r.started().seconds() >= newest->started().seconds()) newest = &r;
  }
  if (!newest) {
    out.from = "none: no profile judged these runs";
    return out;
  }
  absl::StatusOr<Profile> p = ParseProfile(newest->profile().yaml(), newest->profile().source());
  out.from = absl::StrCat(newest->profile().source(), " (run ", newest->run_id(), ")");
  if (p.ok()) {
    out.profile = *std::move(p);
  } else {
    out.from = absl::StrCat(newest->profile().source(), " (run ", newest->run_id(),
                            ") does not read here: ", p.status().message());
  }
  return out;
}

std::vector<std::string> ExceptionLines(const Profile& p) {
  std::vector<std::string> out;
  for (const ProfileException& e : p.exceptions) {
    out.push_back(absl::StrCat("exception ", e.code, e.device.empty() ? "" : " on " + e.device,
                               ": ", e.reason, e.owner.empty() ? "" : ", owner " + e.owner,
                               e.expires.empty() ? "" : ", until " + e.expires));
  }
  return out;
}

void AddOrganisational(const GateProfile& gp, v1::GateChecklist* gate) {
  const AcceptanceProfile& a = gp.profile.Section<AcceptanceProfile>();
  std::vector<std::pair<std::string, std::string>> owners;
  for (const char* layer : kOwnerLayers) {
    const auto it = a.owners.find(layer);
    owners.emplace_back(absl::StrCat("acceptance.owners.", layer),
                        it == a.owners.end() ? "" : absl::StrCat(layer, ": ", it->second));
  }
  *gate->add_items() = Stated("owners", "Owners: host, fabric, Kubernetes, storage, application",
                              "acceptance.owners", owners);
  *gate->add_items() =
      Stated("telemetry", "Telemetry dashboard and alert ownership", "acceptance.dashboards",
             {{"acceptance.alert_owner", a.alert_owner.empty() ? "" : "alerts: " + a.alert_owner},
              {"acceptance.dashboards", absl::StrJoin(a.dashboards, " ")}});
  *gate->add_items() = Stated("rollback", "Rollback and recovery procedure", "acceptance.rollback",
                              {{"acceptance.rollback", a.rollback}});
  v1::GateItem limits =
      Stated("limitations", "Known limitations and exceptions", "acceptance.limitations",
             {{"acceptance.limitations", absl::StrJoin(a.limitations, "; ")}});
  for (std::string& e : ExceptionLines(gp.profile)) limits.add_values(std::move(e));
  *gate->add_items() = std::move(limits);
  *gate->add_items() = Stated("lifecycle", "Lifecycle and upgrade sequence", "acceptance.upgrade",
                              {{"acceptance.upgrade", a.upgrade}});
  *gate->add_items() =
      Stated("service_objective", "Service objective", "acceptance.service_objective",
             {{"acceptance.service_objective", a.service_objective}});
}

// The gate's line for a workload run: the shape, the step, the skew and
// the late rank.
std::string WorkloadSummary(const v1::WorkloadReport& w) {
  if (w.steps() == 0) return absl::StrCat(w.shape(), " (", w.layout(), "): did not finish");
  return absl::StrFormat("%s (%s) on %s: step p50 %.1f ms, cv %.0f%%, %s", w.shape(), w.layout(),
                         w.library(), w.step_p50_ms(), 100 * w.step_cv(),
                         w.late_rank() >= 0
                             ? absl::StrFormat("late rank %d on %s by %.1f ms", w.late_rank(),
                                               w.late_node(), w.late_ms())
                             : std::string("no late rank"));
}

std::vector<Measured> MeasuredItems(const std::vector<v1::StageRun>& runs) {
  std::vector<Measured> items = {
      {"versions",
       "Supported component and version matrix",
       "versions",
       "any run records each node's inventory",
       true,
       {}},
      {"topology",
       "Topology and cabling record",
       "nodes",
       "the single-node probes pcie, locality and cabling",
       true,
       {}},
      {"mtu",
       "MTU from the workload endpoints",
       "mtu",
       "a two-node or cluster run measures the path MTU",
       true,
       {}},
      {"transfers",
       "Transfers between the nodes",
       "pairs",
       "a two-node or cluster run measures them",
       true,
       {}},
      {"collectives",
       "Collective results (nccl-tests-style)",
       "collectives",
       "a two-node or cluster run on nodes with GPUs",
       false,
       {}},
      // A collective is a generic benchmark, not the job: only a replay of
      // the job's own shape meets this (coordinator/stages/workload).
      {"workload",
       "Representative-workload results",
       "workload",
       "`--stage workload` (the job's shape)",
       false,
       {}},
      {"congestion",
       "Congestion evidence",
       "congestion",
       "`--stage congestion` (3 or more nodes)",
       false,
       {}},
      {"failure",
       "Failure-test evidence",
       "failures",
       "`--stage failure --allow-disruptive`",
       false,
       {}},
  };
  AddNodeResults(runs, {"inventory"}, &items[0]);
  AddNodeResults(runs, {"pcie", "locality", "cabling"}, &items[1]);
  AddPairs(runs, true, &items[2]);
  AddPairs(runs, false, &items[3]);
  AddNodeResults(runs, {"nccl"}, &items[4]);
  for (const v1::StageRun& run : runs) {
    for (const v1::ProbeResult& c : run.collectives()) {
      items[4].sources.push_back(
          {&run, {run.nodes().begin(), run.nodes().end()}, c.verdict(), c.reason(), &c.findings()});
    }
    if (run.has_workload()) {
      items[5].sources.push_back(
          {&run, {run.nodes().begin(), run.nodes().end()}, run.workload().verdict(), ""});
    }
    for (const v1::CongestionResult& c : run.congestion()) {
      std::vector<std::string> nodes(c.senders().begin(), c.senders().end());
      nodes.push_back(c.receiver());
      items[6].sources.push_back({&run, nodes, c.verdict(), ""});
    }
    for (const v1::FailureResult& f : run.failures()) {
      items[7].sources.push_back({&run, {f.node(), f.peer()}, f.verdict(), ""});
    }
  }
  return items;
}

}  // namespace

const char* GateStateName(v1::GateState state) {
  switch (state) {
    case v1::GATE_MET:
      return "met";
    case v1::GATE_NOT_MET:
      return "not met";
    case v1::GATE_NOT_APPLICABLE:
      return "not applicable";
    case v1::GATE_WAIVED:
      return "waived";
    default:
      return "not run";
  }
}

v1::GateChecklist GateOf(const std::vector<v1::StageRun>& runs) {
  v1::GateChecklist gate;
  std::set<std::string> all_nodes;
  for (const v1::StageRun& r : runs) all_nodes.insert(r.nodes().begin(), r.nodes().end());
  const GateProfile gp = ProfileOf(runs);
  for (const Measured& m : MeasuredItems(runs)) {
    v1::GateItem g = Judge(m, all_nodes);
    // Recorded is not supported: a version matrix nobody pinned is not met.
    if (g.item() == "versions" && g.state() == v1::GATE_MET && gp.profile.versions.empty()) {
      g.set_state(v1::GATE_NOT_MET);
      g.set_key("versions.<component>");
      g.set_why("recorded, but the profile pins no versions.<component>");
    }
    if (g.item() == "workload") {
      for (const v1::StageRun& r : runs) {
        if (r.has_workload()) g.add_values(WorkloadSummary(r.workload()));
      }
    }
    *gate.add_items() = std::move(g);
  }
  AddOrganisational(gp, &gate);
  gate.set_profile(gp.from);
  std::map<v1::GateState, std::vector<std::string>> by_state;
  for (const v1::GateItem& g : gate.items()) by_state[g.state()].push_back(g.item());
  const size_t unmet = by_state[v1::GATE_NOT_MET].size();
  const size_t unrun = by_state[v1::GATE_NOT_RUN].size();
  const size_t waived = by_state[v1::GATE_WAIVED].size();
  gate.set_complete(unmet == 0 && unrun == 0);
  if (gate.complete() && waived > 0) {
    gate.set_headline(absl::StrCat("gate complete with ", waived, " waived (",
                                   absl::StrJoin(by_state[v1::GATE_WAIVED], ", "),
                                   "): the others met or not applicable"));
  } else if (gate.complete()) {
    gate.set_headline(
        absl::StrCat("gate complete: all ", gate.items_size(), " items met or not applicable"));
  } else {
    std::vector<std::string> parts;
    if (unmet) {
      parts.push_back(
          absl::StrCat(unmet, " not met (", absl::StrJoin(by_state[v1::GATE_NOT_MET], ", "), ")"));
    }
    if (unrun) {
      parts.push_back(
          absl::StrCat(unrun, " not run (", absl::StrJoin(by_state[v1::GATE_NOT_RUN], ", "), ")"));
    }
    if (waived) {
      parts.push_back(
          absl::StrCat(waived, " waived (", absl::StrJoin(by_state[v1::GATE_WAIVED], ", "), ")"));
    }
    gate.set_headline(absl::StrCat("gate incomplete: ", absl::StrJoin(parts, ", ")));
  }
  return gate;
}

v1::StageRun WithGate(v1::StageRun run) {
  *run.mutable_gate() = GateOf({run});
  return run;
}

}  // namespace nodeprobe::coordinator
