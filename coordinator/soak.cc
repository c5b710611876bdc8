#include "coordinator/soak.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "coordinator/soak_profile.h"
#include "probes/framework/result_util.h"
#include "probes/framework/soak_series.h"

namespace nodeprobe::coordinator {
namespace {

std::string Direction(const v1::SoakSeries& s) {
  return absl::StrCat(s.from_node(), " -> ", s.to_node(), " [", s.rail(), "] ", s.op());
}

}  // namespace

void RunSoakRounds(v1::StageRun* run, AgentSession& a, AgentSession& b,
                   const v1::RunStageRequest& request, absl::Time until, absl::Time deadline,
                   const ProgressFn& progress) {
  for (uint32_t round = 2; absl::Now() < until && absl::Now() < deadline; ++round) {
    if (!a.alive() || !b.alive()) return;
    progress(absl::StrFormat("soak round %d (%.0f s left)", round,
                             absl::ToDoubleSeconds(until - absl::Now())));
    const int before = run->pairs_size();
    MeasurePair(run, a, b, request, deadline, progress, {}, false, /*path_mtu=*/false);
    if (run->pairs_size() == before) return;  // nothing measured: the nodes said why
    for (int i = before; i < run->pairs_size(); ++i) run->mutable_pairs(i)->set_round(round);
  }
}

void JudgeSoak(const SoakRules& rules, double duration_s, v1::StageRun* run) {
  v1::SoakReport* soak = run->mutable_soak();
  soak->set_duration_s(duration_s);
  const absl::Time started = TimeOf(run->started());
  std::map<std::tuple<std::string, std::string, std::string, std::string>, v1::SoakSeries> by;
  uint32_t rounds = 0;
  for (const v1::PairResult& p : run->pairs()) {
    if (p.retest() || !p.result().has_transfer()) continue;
    const v1::TransferReport& t = p.result().transfer();
    if (t.results_size() == 0 || t.results(0).partial() || t.results(0).bw_avg_gbps() <= 0) {
      continue;
    }
    const std::string op = v1::TransferOp_Name(t.op());
    v1::SoakSeries& s = by[{p.from_node(), p.to_node(), p.rail(), op}];
    s.set_from_node(p.from_node());
    s.set_to_node(p.to_node());
    s.set_rail(p.rail());
    s.set_op(op);
    // Each direction's figures numbered in order: a two-node soak's rounds,
    // a cluster soak's passes over the pattern.
    v1::SoakPoint* point = s.add_points();
    point->set_round(static_cast<uint32_t>(s.points_size()));
    if (p.result().has_started()) {
      point->set_at_s(absl::ToDoubleSeconds(TimeOf(p.result().started()) - started));
    }
    point->set_gbps(t.results(0).bw_avg_gbps());
    rounds = std::max(rounds, point->round());
  }
  soak->set_intervals(rounds);
  for (auto& [key, s] : by) {
    std::vector<double> g;
    for (const v1::SoakPoint& p : s.points()) g.push_back(p.gbps());
    const SeriesStats stats = StatsOf(g);
    s.set_mean_gbps(stats.mean);
    s.set_min_gbps(stats.min);
    s.set_max_gbps(stats.max);
    s.set_spread(stats.spread);
    s.set_drift(stats.drift);
    JudgeSeries(Direction(s), g, "Gb/s", rules.max_spread, rules.max_drift,
                run->mutable_findings());
    *soak->add_series() = std::move(s);
  }
}

}  // namespace nodeprobe::coordinator
