#include "coordinator/baseline/trend.h"

#include <algorithm>
#include <map>

#include "coordinator/baseline/figures.h"
#include "coordinator/baseline/node_class.h"

namespace nodeprobe::baseline {

v1::NodeTrend TrendOf(const std::vector<v1::StageRun>& runs, const std::string& node,
                      const Marks& marks) {
  std::vector<const v1::StageRun*> accepted;
  for (const v1::StageRun& r : runs) {
    if (Accepted(r)) accepted.push_back(&r);
  }
  std::stable_sort(accepted.begin(), accepted.end(), [](const auto* a, const auto* b) {
    return a->started().seconds() < b->started().seconds();
  });
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
  const auto cls = baselines.find(out.node_class());
  for (auto& [name, t] : figures) {
    if (cls != baselines.end()) {
      if (auto b = cls->second.figures.find(name); b != cls->second.figures.end()) {
        t.set_baseline_median(b->second.median);
        t.set_baseline_spread(b->second.spread);
        t.set_baseline_runs(static_cast<uint32_t>(b->second.n));
      }
    }
    *out.add_figures() = std::move(t);
  }
  return out;
}

}  // namespace nodeprobe::baseline
