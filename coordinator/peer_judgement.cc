// File: peer_judgement.cc
#include "coordinator/peer_judgement.h"

#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"

namespace nodeprobe::coordinator {
namespace {

using Kind = std::string;
// from, to, rail, round, retest, kind
using Key = std::tuple<std::string, std::string, std::string, uint32_t, bool, Kind>;

bool Figure(const v1::PairResult& p, Kind* kind, double* gbps) {
  return BandwidthFigure(p, kind, gbps);
}

std::string Name(const v1::PairResult& p) {
  return absl::StrCat(p.from_node(), " -> ", p.to_node(), " [", p.rail(), "]");
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

void JudgeTransfersAgainstPeers(const Profile& profile, v1::StageRun* run) {
  const TransferBars& bars = profile.transfer;
  std::map<Kind, double> best;
  std::map<Kind, std::string> best_name;
  // Every figure by where it was measured, so each pair finds its reverse
  // in log time (a fleet's run has tens of thousands of pairs).
  std::map<Key, double> figures;
  for (const v1::PairResult& p : run->pairs()) {
    Kind k;
    double g = 0;
    if (!Figure(p, &k, &g)) continue;
    figures[Key{p.from_node(), p.to_node(), p.rail(), p.round(), p.retest(), k}] = g;
    if (g > best[k]) {
      best[k] = g;
      best_name[k] = Name(p);
    }
  }
  for (v1::PairResult& p : *run->mutable_pairs()) {
    Kind k;
    double g = 0;
    if (!Figure(p, &k, &g)) continue;
    v1::ProbeResult* r = p.mutable_result();
    v1::TransferReport* t = r->mutable_transfer();
    const double bar = best[k] * bars.min_fraction_of_best_pair;
    if (t->expected_source().empty() || t->expected_source() == "none") {
      t->set_expected(bar);
      t->set_expected_source("peers");
      t->set_expected_basis(absl::StrFormat("%.2f x the run's best %s (%s, %.2f Gb/s)",
                                            bars.min_fraction_of_best_pair,
                                            v1::TransferOp_Name(t->op()), best_name[k], best[k]));
    }
    if (g < bar) {
      AddFinding(r, "TRANSFER_BELOW_PEERS", bars.below_peers, Name(p),
                 absl::StrFormat("%s moved %.2f Gb/s, %.0f%% of the best pair of its kind in this "
                                 "run (%s, %.2f Gb/s; the bar is %.0f%%)",
                                 Name(p), g, 100 * g / best[k], best_name[k], best[k],
                                 100 * bars.min_fraction_of_best_pair),
                 "the weaker side is named first: check its rail's cable, port speed, PCIe slot "
                 "and counters, then retest it against a node that passed");
    }
    // The same rail the other way, measured in the same round (a retest
    // has its own reverse).
    auto reverse = figures.find(Key{p.to_node(), p.from_node(), p.rail(), p.round(), p.retest(), k});
    if (reverse != figures.end()) {
      const double qg = reverse->second;
      if (g < qg * bars.min_fraction_of_reverse) {
        AddFinding(r, "TRANSFER_ASYMMETRIC", v1::FAIL, Name(p),
                   absl::StrFormat("%s moved %.2f Gb/s but the reverse direction %.2f Gb/s: this "
                                   "direction is %.0f%% of the other (bar %.0f%%)",
                                   Name(p), g, qg, 100 * g / qg,
                                   100 * bars.min_fraction_of_reverse),
                   absl::StrCat("look at what only ", p.from_node(),
                                " sends through: its transmit side (optics, a switch port's "
                                "egress shaping or PFC pauses, the sender's NIC)"));
      }
    }
    FinalizeResult(profile, r);
  }
}

}  // namespace nodeprobe::coordinator
