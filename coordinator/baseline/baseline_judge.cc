#include "coordinator/baseline/baseline_judge.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/baseline/baseline_findings.h"
#include "coordinator/baseline/figures.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::baseline {
namespace {

// Each node's newest accepted figures and class in `history`, read once
// (not per figure judged: a cluster run has thousands against hundreds of
// stored runs).
struct Latest {
  struct Seen {
    double value = 0;
    int64_t when = -1;
    std::string run_id;
  };
  std::map<std::pair<std::string, std::string>, Seen> figures;  // (node, figure)
  std::map<std::string, std::pair<NodeClass, Seen>> classes;    // node -> its class then

  explicit Latest(const std::vector<v1::StageRun>& history) {
    for (const v1::StageRun& run : history) {
      if (!Accepted(run)) continue;
      const Seen at{.when = run.started().seconds(), .run_id = run.run_id()};
      for (const Figure& f : FiguresOf(run)) {
        Seen& s = figures[{f.node, f.name}];
        if (at.when >= s.when) s = {.value = f.value, .when = at.when, .run_id = at.run_id};
      }
      for (const v1::StageReport& r : run.node_reports()) {
        auto it = classes.find(r.node());
        if (it == classes.end() || at.when >= it->second.second.when) {
          classes[r.node()] = {ClassOf(r, run.profile().source()), at};
        }
      }
    }
  }
  std::string Previous(const std::string& node, const std::string& figure) const {
    auto it = figures.find({node, figure});
    return it == figures.end() ? "no earlier value for this node"
                               : absl::StrFormat("this node's previous value %.4g (run %s)",
                                                 it->second.value, it->second.run_id);
  }
};

}  // namespace

void JudgeAgainstBaselines(v1::StageRun* run, const std::vector<v1::StageRun>& history,
                           const BaselineRules& rules, const Marks& marks) {
  if (!rules.use) return;
  const std::map<std::string, ClassBaselines> classes = BaselinesOf(history, marks);
  std::map<std::string, NodeClass> node_class;
  for (const v1::StageReport& r : run->node_reports()) {
    node_class[r.node()] = ClassOf(r, run->profile().source());
  }
  const RegressionRules rule{.min_runs = rules.min_runs,
                             .warn = rules.regression_warn,
                             .fail = rules.regression_fail,
                             .noise_sigmas = rules.noise_sigmas};
  std::set<std::string> too_few;  // classes already said
  // A node whose class changed since its last accepted run (a version):
  // how its figures moved against the old class's baseline.
  std::map<std::string, std::vector<std::string>> moved;
  std::map<std::string, std::pair<NodeClass, std::string>> changed;
  const Latest latest(history);
  for (const auto& [node, now] : node_class) {
    auto before = latest.classes.find(node);
    if (before != latest.classes.end() && before->second.first.Key() != now.Key()) {
      changed[node] = {before->second.first, before->second.second.run_id};
    }
  }
  for (const Figure& f : FiguresOf(*run)) {
    if (auto ch = changed.find(f.node); ch != changed.end()) {
      auto old = classes.find(ch->second.first.Key());
      if (old != classes.end() && old->second.figures.count(f.name) &&
          old->second.figures.at(f.name).n >= rules.min_runs) {
        const Baseline& ob = old->second.figures.at(f.name);
        moved[f.node].push_back(absl::StrFormat("%s %.4g against %.4g before (%+.1f%%)", f.name,
                                                f.value, ob.median,
                                                100 * (f.value / ob.median - 1)));
      }
    }
    auto nc = node_class.find(f.node);
    if (nc == node_class.end()) continue;
    const std::string key = nc->second.Key();
    auto c = classes.find(key);
    const Baseline b = c == classes.end() || !c->second.figures.count(f.name)
                           ? Baseline{}
                           : c->second.figures.at(f.name);
    const Regression r = Judge(f.value, b, rule, f.higher_is_better);
    if (r.state == Regression::kNotEnoughRuns) {
      if (too_few.insert(key).second) {
        AddFinding(run->mutable_findings(), findings::kBaselineTooFewRuns.code, f.node,
                   absl::StrCat("class ", key, ": ", f.name, ": ", r.why));
      }
      continue;
    }
    if (r.state != Regression::kWarn && r.state != Regression::kFail) continue;
    AddFinding(
        run->mutable_findings(), findings::kRegressedFromBaseline.code,
        r.state == Regression::kFail ? v1::FAIL : v1::WARN, absl::StrCat(f.node, " ", f.name),
        absl::StrCat(f.name, ": ", r.why, "; ", latest.Previous(f.node, f.name), "; class ", key));
  }
  for (const auto& [node, before] : changed) {
    const std::vector<std::string> what = node_class[node].ChangesFrom(before.first);
    AddFinding(run->mutable_findings(), findings::kBaselineClassChanged.code, node,
               absl::StrCat(node, "'s class changed since run ", before.second, " (",
                            absl::StrJoin(what, ", "), "): its baseline starts over",
                            moved[node].empty() ? ""
                                                : absl::StrCat("; against the old class: ",
                                                               absl::StrJoin(moved[node], "; "))));
  }
}

std::vector<BaselineRatio> RatiosToBaselines(const v1::StageRun& run,
                                             const std::vector<v1::StageRun>& history,
                                             size_t min_runs, const Marks& marks) {
  const std::map<std::string, ClassBaselines> classes = BaselinesOf(history, marks);
  std::map<std::string, std::string> class_of;
  for (const v1::StageReport& r : run.node_reports()) {
    class_of[r.node()] = ClassOf(r, run.profile().source()).Key();
  }
  std::vector<BaselineRatio> out;
  for (const Figure& f : FiguresOf(run)) {
    auto k = class_of.find(f.node);
    if (k == class_of.end()) continue;
    auto c = classes.find(k->second);
    if (c == classes.end()) continue;
    auto b = c->second.figures.find(f.name);
    if (b == c->second.figures.end() || b->second.n < min_runs || b->second.median <= 0) continue;
    out.push_back({.node = f.node, .figure = f.name, .ratio = f.value / b->second.median});
  }
  return out;
}

}  // namespace nodeprobe::baseline
