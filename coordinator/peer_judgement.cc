#include "coordinator/peer_judgement.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_stats.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::coordinator {
namespace {

using Kind = std::string;
// from, to, rail, kind: the place a figure was measured.
using Place = std::tuple<std::string, std::string, std::string, Kind>;

std::string Name(const v1::PairResult& p) {
  return absl::StrCat(p.from_node(), " -> ", p.to_node(), " [", p.rail(), "]");
}

// One bandwidth figure of the run.
struct Fig {
  int pair = 0;  // index in run->pairs()
  Kind kind;
  double gbps = 0;
  double cv = 0;
  Place place;
};

// Everything the judgement needs, computed once from the run.
struct Assessment {
  std::vector<Fig> figs;
  std::map<Kind, PeerReference> refs;          // from first measurements only
  std::map<Place, std::vector<int>> retests;   // place -> indices into figs
  std::map<Place, std::vector<int>> firsts;    // the same for first measurements
  // (from, to, rail, round, retest, kind) -> gbps: each pair's reverse.
  std::map<std::tuple<std::string, std::string, std::string, uint32_t, bool, Kind>, int> by_round;
};

Assessment Assess(const v1::StageRun& run) {
  Assessment a;
  std::map<std::string, int> node_index;
  auto index = [&](const std::string& node) {
    return node_index.emplace(node, static_cast<int>(node_index.size())).first->second;
  };
  std::map<Kind, std::vector<PeerSample>> samples;
  for (int i = 0; i < run.pairs_size(); ++i) {
    const v1::PairResult& p = run.pairs(i);
    Fig f;
    if (!BandwidthFigure(p, &f.kind, &f.gbps)) continue;
    f.pair = i;
    f.cv = FigureCv(p);
    f.place = Place{p.from_node(), p.to_node(), p.rail(), f.kind};
    const int at = static_cast<int>(a.figs.size());
    a.by_round[{p.from_node(), p.to_node(), p.rail(), p.round(), p.retest(), f.kind}] = at;
    if (p.retest()) {
      a.retests[f.place].push_back(at);
    } else {
      a.firsts[f.place].push_back(at);
      samples[f.kind].push_back({index(p.from_node()), index(p.to_node()), f.gbps, f.cv});
    }
    a.figs.push_back(std::move(f));
  }
  for (const auto& [kind, s] : samples) a.refs[kind] = ReferenceOf(s);
  return a;
}

bool LowVsPeers(const Fig& f, const Assessment& a, const TransferBars& bars) {
  auto ref = a.refs.find(f.kind);
  return ref != a.refs.end() && ref->second.samples >= 2 &&
         LowAgainst(f.gbps, f.cv, ref->second, bars.min_fraction_of_peers, bars.noise_sigmas);
}

// The same rail the other way, measured in the same round (a retest has its
// own reverse); -1 when there is none.
int ReverseOf(const Fig& f, const v1::PairResult& p, const Assessment& a) {
  auto it = a.by_round.find({p.to_node(), p.from_node(), p.rail(), p.round(), p.retest(), f.kind});
  return it == a.by_round.end() ? -1 : it->second;
}

bool Asymmetric(const Fig& f, const Fig& reverse, const Assessment& a, const TransferBars& bars) {
  auto ref = a.refs.find(f.kind);
  const double spread = ref == a.refs.end() ? 0 : ref->second.spread;
  return LowAgainstOther(f.gbps, f.cv, reverse.gbps, reverse.cv, spread,
                         bars.min_fraction_of_reverse, bars.noise_sigmas);
}

bool HasFail(const v1::ProbeResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code && f.severity() == v1::FAIL) return true;
  }
  return false;
}

// "; reproduced by the retest (9.10 Gb/s)" / "; not reproduced: the retest
// moved 15.20 Gb/s" / "; one sample, not retested": how a gap stands.
struct RetestOutcome {
  bool reproduced = false;
  std::string note;
  std::string word;  // "reproduced", "not reproduced", "not retested"
};

RetestOutcome Outcome(const std::vector<int>& retests, const Assessment& a,
                      const std::function<bool(const Fig&)>& gap) {
  if (retests.empty()) return {false, "; one sample, not retested: not a FAIL", "not retested"};
  std::vector<std::string> figures;
  bool reproduced = true;
  for (int i : retests) {
    figures.push_back(absl::StrFormat("%.2f Gb/s", a.figs[i].gbps));
    reproduced &= gap(a.figs[i]);
  }
  return reproduced ? RetestOutcome{true,
                                    absl::StrCat("; reproduced by the retest (",
                                                 absl::StrJoin(figures, ", "), ")"),
                                    "reproduced"}
                    : RetestOutcome{false,
                                    absl::StrCat("; not reproduced: the retest moved ",
                                                 absl::StrJoin(figures, ", "),
                                                 " (transient, or load from elsewhere)"),
                                    "not reproduced"};
}

void TooNoisy(const Assessment& a, const TransferBars& bars, v1::StageRun* run) {
  for (const auto& [kind, ref] : a.refs) {
    if (ref.samples < 3 || ref.spread <= bars.max_spread) continue;
    AddFinding(
        run->mutable_findings(), findings::kMeasurementTooNoisy.code, kind,
        absl::StrFormat(
            "%s: the run's measurements vary by %.0f%% (robust spread over %d measurements of %d "
            "nodes; transfer.max_spread %.0f%%): gaps under %.0f%% of the reference (%.2f Gb/s) "
            "cannot be told from noise and were not judged",
            kind, 100 * ref.spread, static_cast<int>(ref.samples), static_cast<int>(ref.nodes),
            100 * bars.max_spread, 100 * bars.noise_sigmas * ref.spread, ref.value));
  }
}

}  // namespace

bool BandwidthFigure(const v1::PairResult& p, std::string* kind, double* gbps) {
  if (!p.result().has_transfer()) return false;
  const v1::TransferReport& t = p.result().transfer();
  if (t.op() == v1::RR_LAT || t.op() == v1::WRITE_LAT || t.results_size() == 0) return false;
  const v1::TransferResult& row = t.results(0);
  if (row.partial() || row.bw_avg_gbps() <= 0) return false;
  *kind = absl::StrCat(v1::Transport_Name(t.transport()), " ", v1::TransferOp_Name(t.op()), " ",
                       row.size(), " B");
  *gbps = row.bw_avg_gbps();
  return true;
}

bool LatencyFigure(const v1::PairResult& p, std::string* kind, double* median_us) {
  if (!p.result().has_transfer()) return false;
  const v1::TransferReport& t = p.result().transfer();
  if ((t.op() != v1::RR_LAT && t.op() != v1::WRITE_LAT) || t.results_size() == 0) return false;
  const v1::TransferResult& row = t.results(0);
  if (row.partial() || row.latency().median_us() <= 0) return false;
  *kind = absl::StrCat(v1::Transport_Name(t.transport()), " ", v1::TransferOp_Name(t.op()), " ",
                       row.size(), " B");
  *median_us = row.latency().median_us();
  return true;
}

double FigureCv(const v1::PairResult& p) {
  if (!p.result().has_transfer() || p.result().transfer().results_size() == 0) return 0;
  return p.result().transfer().results(0).interval_cv();
}

std::vector<PairPlace> PlacesToRetest(const Profile& profile, const v1::StageRun& run) {
  const TransferBars& bars = profile.Section<TransferBars>();
  const Assessment a = Assess(run);
  std::set<std::tuple<std::string, std::string, std::string>> want;
  for (const Fig& f : a.figs) {
    const v1::PairResult& p = run.pairs(f.pair);
    if (p.retest()) continue;
    bool gap = HasFail(p.result(), findings::kTransferBelowExpected.code) ||
               (bars.below_peers == v1::FAIL && LowVsPeers(f, a, bars));
    if (const int r = ReverseOf(f, p, a); r >= 0 && Asymmetric(f, a.figs[r], a, bars)) {
      gap = true;
      want.insert({p.to_node(), p.from_node(), p.rail()});  // the reverse, to compare with
    }
    if (gap) want.insert({p.from_node(), p.to_node(), p.rail()});
  }
  std::vector<PairPlace> out;
  for (const auto& [from, to, rail] : want) out.push_back({from, to, rail});
  return out;
}

namespace {

// A retest's own bar: judged through the first measurement of its
// direction; alone, a FAIL of its own bar is one sample too.
void JudgeRetest(const Assessment& a, const Fig& f, const v1::StageRun& run, v1::ProbeResult* r) {
  // A second sample is judged through its first (below); alone, its
  // own bar's FAIL is one sample too.
  bool first_failed = false;
  if (auto first = a.firsts.find(f.place); first != a.firsts.end()) {
    for (int i : first->second) {
      first_failed |=
          HasFail(run.pairs(a.figs[i].pair).result(), findings::kTransferBelowExpected.code);
    }
  }
  for (v1::Finding& finding : *r->mutable_findings()) {
    if (finding.code() == findings::kTransferBelowExpected.code && finding.severity() == v1::FAIL &&
        !first_failed) {
      finding.set_severity(v1::WARN);
      absl::StrAppend(finding.mutable_message(),
                      "; the first measurement of this direction did not fall short: one "
                      "sample, not a FAIL");
    }
  }
}

}  // namespace

void JudgeTransfersAgainstPeers(const Profile& profile, v1::StageRun* run) {
  const TransferBars& bars = profile.Section<TransferBars>();
  const Assessment a = Assess(*run);
  TooNoisy(a, bars, run);
  for (const Fig& f : a.figs) {
    v1::PairResult& p = *run->mutable_pairs(f.pair);
    v1::ProbeResult* r = p.mutable_result();
    v1::TransferReport* t = r->mutable_transfer();
    auto ref_it = a.refs.find(f.kind);
    const PeerReference ref = ref_it == a.refs.end() ? PeerReference() : ref_it->second;
    if (ref.value > 0) {
      t->set_peer_reference_gbps(ref.value);
      t->set_noise(NoiseOf(ref, f.cv));
    }
    if ((t->expected_source().empty() || t->expected_source() == "none") && ref.value > 0) {
      t->set_expected(ref.value * bars.min_fraction_of_peers);
      t->set_expected_source("peers");
      t->set_expected_basis(absl::StrFormat(
          "%.2f x the peers' reference %.2f Gb/s (median over %d nodes of their %s medians, "
          "%d measurements; spread %.0f%%), below it by more than %.0f x the noise",
          bars.min_fraction_of_peers, ref.value, static_cast<int>(ref.nodes),
          v1::TransferOp_Name(t->op()), static_cast<int>(ref.samples), 100 * ref.spread,
          bars.noise_sigmas));
    }
    if (p.retest()) {
      JudgeRetest(a, f, *run, r);
      FinalizeResult(profile, r);
      continue;
    }
    const auto retests = a.retests.find(f.place);
    const std::vector<int> again = retests == a.retests.end() ? std::vector<int>{}
                                                                : retests->second;
    // The node's own bar (profile or hardware): FAIL only when reproduced.
    for (v1::Finding& finding : *r->mutable_findings()) {
      if (finding.code() != findings::kTransferBelowExpected.code || finding.severity() != v1::FAIL)
        continue;
      const RetestOutcome o = Outcome(again, a, [&](const Fig& x) {
        return HasFail(run->pairs(x.pair).result(), findings::kTransferBelowExpected.code);
      });
      if (!o.reproduced) finding.set_severity(v1::WARN);
      absl::StrAppend(finding.mutable_message(), o.note);
      t->set_retest(o.word);
    }
    if (LowVsPeers(f, a, bars)) {
      const RetestOutcome o = Outcome(again, a, [&](const Fig& x) { return LowVsPeers(x, a, bars); });
      t->set_retest(o.word);
      AddFinding(r, findings::kTransferBelowPeers.code, o.reproduced ? bars.below_peers : v1::WARN,
                 Name(p),
                 absl::StrFormat("%s moved %.2f Gb/s, %.0f%% of the peers' reference %.2f Gb/s "
                                 "(the bar is %.0f%%, and the gap %.0f%% is over %.0f x the "
                                 "noise %.0f%%)%s",
                                 Name(p), f.gbps, 100 * f.gbps / ref.value, ref.value,
                                 100 * bars.min_fraction_of_peers, 100 * (1 - f.gbps / ref.value),
                                 bars.noise_sigmas, 100 * NoiseOf(ref, f.cv), o.note));
    }
    if (const int rev = ReverseOf(f, p, a); rev >= 0 && Asymmetric(f, a.figs[rev], a, bars)) {
      const double qg = a.figs[rev].gbps;
      // Reproduced: every retest of this direction is asymmetric against
      // the retest of the reverse in its own round.
      const RetestOutcome o = Outcome(again, a, [&](const Fig& x) {
        const int back = ReverseOf(x, run->pairs(x.pair), a);
        return back >= 0 && Asymmetric(x, a.figs[back], a, bars);
      });
      t->set_retest(o.word);
      AddFinding(r, findings::kTransferAsymmetric.code, o.reproduced ? v1::FAIL : v1::WARN, Name(p),
                 absl::StrFormat(
                     "%s moved %.2f Gb/s but the reverse direction %.2f Gb/s: this "
                     "direction is %.0f%% of the other (bar %.0f%%, noise %.0f%%)%s",
                     Name(p), f.gbps, qg, 100 * f.gbps / qg, 100 * bars.min_fraction_of_reverse,
                     100 * std::max(ref.spread, std::hypot(f.cv, a.figs[rev].cv)), o.note));
    }
    FinalizeResult(profile, r);
  }
}

}  // namespace nodeprobe::coordinator
