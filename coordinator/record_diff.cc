#include "coordinator/record_diff.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "coordinator/acceptance_gate.h"
#include "coordinator/baseline/figures.h"
#include "coordinator/baseline/node_class.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

// Per node, per probe that read it: what -> value.
using NodeValues = std::map<std::string, std::map<std::string, std::map<std::string, std::string>>>;

// The probes whose evidence is the node's topology (locality, PCIe),
// cabling and configuration; the others' evidence holds measurements and
// counters that differ on every run.
constexpr std::string_view kConfigurationProbes[] = {
    "cabling", "locality", "pcie", "host-config", "roce-config", "mtu", "gpudirect"};

NodeValues VersionsOf(const v1::StageRun& run) {
  NodeValues out;
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) {
      if (p.inventory().components_size() == 0) continue;
      std::map<std::string, std::string>& v = out[r.node()]["versions"];
      v["gpu"] = baseline::ClassOf(r, "").parts.front().second;
      for (const v1::Component& c : p.inventory().components()) {
        const std::string key =
            c.device().empty() ? c.name() : absl::StrCat(c.name(), " ", c.device());
        v[key] = !c.present() ? "absent" : c.version().empty() ? "present" : c.version();
      }
    }
  }
  return out;
}

NodeValues ConfigurationOf(const v1::StageRun& run) {
  NodeValues out;
  for (const v1::StageReport& r : run.node_reports()) {
    for (const v1::ProbeResult& p : r.results()) {
      if (std::find(std::begin(kConfigurationProbes), std::end(kConfigurationProbes), p.probe()) ==
          std::end(kConfigurationProbes)) {
        continue;
      }
      std::map<std::string, std::string>& v = out[r.node()][p.probe()];
      for (const auto& [what, value] : p.evidence()) v[what] = value;
    }
  }
  return out;
}

// What differs on the nodes in both records, for the probes that read it
// in both (a probe one record did not run changed nothing).
void DiffValues(const NodeValues& old_values, const NodeValues& new_values, bool prefix,
                google::protobuf::RepeatedPtrField<v1::RecordDiff::NodeChange>* out) {
  for (const auto& [node, probes] : new_values) {
    auto o = old_values.find(node);
    if (o == old_values.end()) continue;
    for (const auto& [probe, values] : probes) {
      auto op = o->second.find(probe);
      if (op == o->second.end()) continue;
      std::set<std::string> keys;
      for (const auto& kv : values) keys.insert(kv.first);
      for (const auto& kv : op->second) keys.insert(kv.first);
      for (const std::string& key : keys) {
        auto was = op->second.find(key);
        auto is = values.find(key);
        const std::string old_value = was == op->second.end() ? "(not read)" : was->second;
        const std::string new_value = is == values.end() ? "(not read)" : is->second;
        if (old_value == new_value) continue;
        v1::RecordDiff::NodeChange* c = out->Add();
        c->set_node(node);
        c->set_what(prefix ? absl::StrCat(probe, ": ", key) : key);
        c->set_old_value(old_value);
        c->set_new_value(new_value);
      }
    }
  }
}

void DiffGate(const v1::StageRun& old_run, const v1::StageRun& new_run, v1::RecordDiff* diff) {
  const v1::GateChecklist old_gate = GateOf({old_run}), new_gate = GateOf({new_run});
  std::map<std::string, v1::GateItem> before;
  for (const v1::GateItem& i : old_gate.items()) before[i.item()] = i;
  for (const v1::GateItem& i : new_gate.items()) {
    auto b = before.find(i.item());
    const v1::GateState was = b == before.end() ? v1::GATE_STATE_UNSPECIFIED : b->second.state();
    if (was == i.state()) continue;
    v1::RecordDiff::GateChange* c = diff->add_gate();
    c->set_item(i.item());
    c->set_title(i.title());
    c->set_old_state(was);
    c->set_new_state(i.state());
    c->set_why(i.why());
  }
}

v1::RecordDiff::Side SideOf(const v1::StageRun& run) {
  v1::RecordDiff::Side s;
  s.set_run_id(run.run_id());
  s.set_stage(v1::Stage_Name(run.stage()));
  s.set_verdict(run.verdict());
  s.set_gate(GateOf({run}).complete() ? v1::GATE_MET : v1::GATE_NOT_MET);
  if (run.has_started()) {
    s.set_started(absl::FormatTime(
        absl::RFC3339_sec, absl::FromUnixSeconds(run.started().seconds()), absl::UTCTimeZone()));
  }
  s.set_nodes(static_cast<uint32_t>(run.nodes_size()));
  return s;
}

}  // namespace

namespace {

// A figure every node shares (a collective's, the workload's step) moved
// once, not once per node: it is listed once, for "every node".
void DiffFigures(const v1::StageRun& old_run, const v1::StageRun& new_run,
                 const DiffOptions& options, v1::RecordDiff* diff) {
  std::map<std::pair<std::string, std::string>, double> before;
  std::map<std::string, std::vector<double>> peers;  // per figure: the old record's nodes
  for (const baseline::Figure& f : baseline::FiguresOf(old_run)) {
    before[{f.node, f.name}] = f.value;
    peers[f.name].push_back(f.value);
  }
  std::map<std::string, std::vector<v1::RecordDiff::FigureChange>> moved;
  uint32_t compared = 0;
  for (const baseline::Figure& f : baseline::FiguresOf(new_run)) {
    auto b = before.find({f.node, f.name});
    if (b == before.end() || b->second <= 0) continue;
    ++compared;
    // Fewer than four nodes cannot say how a figure spreads (two that
    // differ would excuse any move): the floor alone then.
    const std::vector<double>& p = peers[f.name];
    const double spread =
        p.size() < 4 ? options.min_change
                     : std::max(options.min_change,
                                options.noise_sigmas * stats::RelativeMad(p, stats::Median(p)));
    const double change = (f.value - b->second) / b->second;
    if (std::fabs(change) <= spread) continue;
    v1::RecordDiff::FigureChange c;
    c.set_node(f.node);
    c.set_figure(f.name);
    c.set_old_value(b->second);
    c.set_new_value(f.value);
    c.set_change(change);
    c.set_spread(spread);
    c.set_worse(f.higher_is_better ? change < 0 : change > 0);
    moved[f.name].push_back(std::move(c));
  }
  std::vector<v1::RecordDiff::FigureChange> out;
  for (auto& entry : moved) {
    std::vector<v1::RecordDiff::FigureChange>& changes = entry.second;
    const v1::RecordDiff::FigureChange& first = changes[0];
    const bool shared =
        changes.size() > 1 && std::all_of(changes.begin(), changes.end(), [&](const auto& c) {
          return c.old_value() == first.old_value() && c.new_value() == first.new_value();
        });
    if (shared) {
      changes.resize(1);
      changes[0].set_node("every node");
    }
    out.insert(out.end(), changes.begin(), changes.end());
  }
  // The worse first, the largest moves first among them.
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.worse() != b.worse()) return a.worse();
    return std::fabs(a.change()) > std::fabs(b.change());
  });
  for (auto& c : out) *diff->add_figures() = std::move(c);
  diff->set_figures_compared(compared);
  diff->set_min_change(options.min_change);
}

}  // namespace

absl::Status CheckSameFleet(const v1::StageRun& old_run, const v1::StageRun& new_run) {
  const std::set<std::string> old_nodes(old_run.nodes().begin(), old_run.nodes().end());
  for (const std::string& n : new_run.nodes()) {
    if (old_nodes.count(n)) return absl::OkStatus();
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "run ", old_run.run_id(), " (", old_run.nodes_size(), " nodes) and run ", new_run.run_id(),
      " (", new_run.nodes_size(),
      " nodes) share no node: records of different fleets, nothing to compare; diff two "
      "acceptances of one cluster"));
}

v1::RecordDiff DiffRecords(const v1::StageRun& old_run, const v1::StageRun& new_run,
                           const DiffOptions& options) {
  v1::RecordDiff diff;
  *diff.mutable_old() = SideOf(old_run);
  *diff.mutable_new_() = SideOf(new_run);
  const std::set<std::string> before(old_run.nodes().begin(), old_run.nodes().end());
  const std::set<std::string> after(new_run.nodes().begin(), new_run.nodes().end());
  for (const std::string& n : after) {
    if (!before.count(n)) diff.add_nodes_added(n);
  }
  for (const std::string& n : before) {
    if (!after.count(n)) diff.add_nodes_removed(n);
  }
  DiffValues(VersionsOf(old_run), VersionsOf(new_run), false, diff.mutable_versions());
  DiffValues(ConfigurationOf(old_run), ConfigurationOf(new_run), true,
             diff.mutable_configuration());
  DiffGate(old_run, new_run, &diff);
  DiffFigures(old_run, new_run, options, &diff);
  return diff;
}

bool Unchanged(const v1::RecordDiff& diff) {
  return diff.nodes_added_size() == 0 && diff.nodes_removed_size() == 0 &&
         diff.versions_size() == 0 && diff.configuration_size() == 0 && diff.gate_size() == 0 &&
         diff.figures_size() == 0;
}

bool Worse(const v1::RecordDiff& diff) {
  for (const v1::RecordDiff::FigureChange& f : diff.figures()) {
    if (f.worse()) return true;
  }
  for (const v1::RecordDiff::GateChange& g : diff.gate()) {
    if (g.old_state() == v1::GATE_MET && g.new_state() != v1::GATE_NOT_APPLICABLE) return true;
  }
  auto failed = [](v1::Verdict v) { return v == v1::FAIL || v == v1::ERROR; };
  return diff.nodes_removed_size() > 0 ||
         (failed(diff.new_().verdict()) && !failed(diff.old().verdict()));
}

}  // namespace nodeprobe::coordinator
