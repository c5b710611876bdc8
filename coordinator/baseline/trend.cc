#include "coordinator/baseline/trend.h"

#include <algorithm>
#include <map>
#include <set>

#include "coordinator/baseline/figures.h"
#include "coordinator/baseline/node_class.h"
#include "platform/statistics.h"

namespace nodeprobe::baseline {

namespace {

std::vector<const v1::StageRun*> AcceptedOldestFirst(const std::vector<v1::StageRun>& runs) {
  std::vector<const v1::StageRun*> accepted;
  for (const v1::StageRun& r : runs) {
    if (Accepted(r)) accepted.push_back(&r);
  }
  std::stable_sort(accepted.begin(), accepted.end(), [](const auto* a, const auto* b) {
    return a->started().seconds() < b->started().seconds();
  });
  return accepted;
}

void SetBaseline(const std::map<std::string, ClassBaselines>& baselines, const std::string& key,
                 v1::FigureTrend* t) {
  const auto cls = baselines.find(key);
  if (cls == baselines.end()) return;
  if (auto b = cls->second.figures.find(t->figure()); b != cls->second.figures.end()) {
    t->set_baseline_median(b->second.median);
    t->set_baseline_spread(b->second.spread);
    t->set_baseline_runs(static_cast<uint32_t>(b->second.n));
  }
}

}  // namespace

v1::FleetTrend FleetTrendOf(const std::vector<v1::StageRun>& runs, const Marks& marks,
                            const std::string& filter) {
  // class -> figure -> its trend; class -> runs that measured it.
  std::map<std::string, std::map<std::string, v1::FigureTrend>> classes;
  std::map<std::string, uint32_t> measured;
  for (const v1::StageRun* run : AcceptedOldestFirst(runs)) {
    std::map<std::string, std::string> class_of;  // node -> class key
    for (const v1::StageReport& r : run->node_reports()) {
      class_of[r.node()] = ClassOf(r, run->profile().source()).Key();
    }
    std::map<std::pair<std::string, std::string>, std::vector<double>> values;
    std::map<std::string, bool> higher;
    for (const Figure& f : FiguresOf(*run)) {
      auto c = class_of.find(f.node);
      if (c == class_of.end() || c->second.find(filter) == std::string::npos) continue;
      values[{c->second, f.name}].push_back(f.value);
      higher[f.name] = f.higher_is_better;
    }
    std::set<std::string> seen;
    for (auto& [at, v] : values) {
      v1::FigureTrend& t = classes[at.first][at.second];
      t.set_figure(at.second);
      t.set_higher_is_better(higher[at.second]);
      v1::FigureTrend::Point* p = t.add_points();
      p->set_run_id(run->run_id());
      p->set_seconds(run->started().seconds());
      p->set_value(stats::Median(v));
      p->set_low(*std::min_element(v.begin(), v.end()));
      p->set_high(*std::max_element(v.begin(), v.end()));
      p->set_nodes(static_cast<uint32_t>(v.size()));
      seen.insert(at.first);
    }
    for (const std::string& key : seen) ++measured[key];
  }
  const std::map<std::string, ClassBaselines> baselines = BaselinesOf(runs, marks);
  v1::FleetTrend out;
  for (auto& [key, figures] : classes) {
    v1::ClassTrend* c = out.add_classes();
    c->set_key(key);
    c->set_runs(measured[key]);
    for (auto& [name, t] : figures) {
      SetBaseline(baselines, key, &t);
      *c->add_figures() = std::move(t);
    }
  }
  return out;
}

v1::NodeTrend TrendOf(const std::vector<v1::StageRun>& runs, const std::string& node,
                      const Marks& marks) {
  const std::vector<const v1::StageRun*> accepted = AcceptedOldestFirst(runs);
  v1::NodeTrend out;
  out.set_node(node);
  std::map<std::string, v1::FigureTrend> figures;
  for (const v1::StageRun* run : accepted) {
    bool measured = false;
    for (const Figure& f : FiguresOf(*run)) {
      if (f.node != node) continue;
      measured = true;
      v1::FigureTrend& t = figures[f.name];
      t.set_figure(f.name);
      t.set_higher_is_better(f.higher_is_better);
      v1::FigureTrend::Point* p = t.add_points();
      p->set_run_id(run->run_id());
      p->set_seconds(run->started().seconds());
      p->set_value(f.value);
    }
    out.set_runs(out.runs() + (measured ? 1 : 0));
    for (const v1::StageReport& r : run->node_reports()) {
      if (r.node() == node) out.set_node_class(ClassOf(r, run->profile().source()).Key());
    }
  }
  const std::map<std::string, ClassBaselines> baselines = BaselinesOf(runs, marks);
  for (auto& [name, t] : figures) {
    SetBaseline(baselines, out.node_class(), &t);
    *out.add_figures() = std::move(t);
  }
  return out;
}

}  // namespace nodeprobe::baseline
