#include "coordinator/stages/cluster/cluster_stage.h"

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/peer_stats.h"
#include "coordinator/soak.h"
#include "coordinator/soak_profile.h"
#include "coordinator/stages/cluster/blame.h"
#include "coordinator/stages/cluster/cluster_findings.h"
#include "coordinator/stages/cluster/cluster_profile.h"
#include "coordinator/stages/cluster/pairing.h"
#include "platform/bounded_for.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_profile.h"

namespace nodeprobe::coordinator {
namespace {

// Per-pair progress lines are worth reading for a handful of nodes; a
// fleet's run says one line per round.
constexpr size_t kChattyUpTo = 16;

struct PairJob {
  int a = 0;
  int b = 0;
  std::vector<int> rails;  // empty: every selected rail
};

// Runs `jobs` at once (each node is in at most one of them) and adds their
// pairs, tagged with `round`, to `run`; a finding about a node is kept
// once however many pairs it ended.
void RunPairs(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
              const std::vector<PairJob>& jobs, uint32_t round, bool retest,
              const v1::RunStageRequest& request, absl::Time deadline, const ProgressFn& progress,
              bool chatty, bool latency, bool path_mtu) {
  std::vector<v1::StageRun> parts(jobs.size());
  // Each part's tasks carry the run's profile (the nodes judge with it).
  for (v1::StageRun& part : parts) *part.mutable_profile() = run->profile();
  const ProgressFn quiet = [](const std::string&) {};
  platform::BoundedFor(jobs.size(), kMaxConcurrentAsks, [&](size_t i) {
    AgentSession& a = *nodes[jobs[i].a];
    AgentSession& b = *nodes[jobs[i].b];
    if (!a.alive() || !b.alive()) return;  // its loss is recorded once, below
    MeasurePair(&parts[i], a, b, request, deadline, chatty ? progress : quiet, jobs[i].rails,
                latency, path_mtu);
  });
  for (v1::StageRun& part : parts) {
    for (v1::PairResult& p : *part.mutable_pairs()) {
      p.set_round(round);
      p.set_retest(retest);
    }
    AppendOnce(run, std::move(part));
  }
  std::set<std::pair<std::string, std::string>> said;
  for (const v1::Finding& f : run->findings()) said.insert({f.code(), f.device()});
  for (const auto& n : nodes) {
    if (!n->alive() && said.insert({findings::kAgentLost.code, n->node()}).second) {
      AddFinding(run->mutable_findings(), findings::kAgentLost.code, n->node(),
                 absl::StrCat(n->node(),
                              " was lost during the cluster rounds; its "
                              "remaining pairs were not measured"));
    }
  }
}

std::string RailName(const AgentSession& s, int rail) {
  return rail < s.registration().rails_size() ? s.registration().rails(rail).name() : "tcp";
}

std::string Figure(const v1::PairResult& p) {
  std::string kind;
  double g = 0;
  if (LatencyFigure(p, &kind, &g)) {
    return absl::StrFormat("%s -> %s [%s] %.1f us", p.from_node(), p.to_node(), p.rail(), g);
  }
  BandwidthFigure(p, &kind, &g);
  return absl::StrFormat("%s -> %s [%s] %.2f Gb/s", p.from_node(), p.to_node(), p.rail(), g);
}

// Who is measured again, and with whom. A control is two good nodes
// measured in the same retest round as a suspect: when they fall short too,
// the moment was bad (a busy host, a noisy fabric), not the suspect.
struct Retest {
  size_t suspect = 0;
  PairJob job;
  int known_good = -1;  // -1: a link, measured again as it is
  bool control = false;
};

// The run's first-round measurements, for blame; `pair_of` maps each to
// its index in run.pairs().
std::vector<Measurement> Measurements(const v1::StageRun& run,
                                      const std::vector<std::shared_ptr<AgentSession>>& nodes,
                                      const std::map<std::string, int>& index, bool retests,
                                      std::vector<int>* pair_of) {
  std::vector<Measurement> m;
  for (int i = 0; i < run.pairs_size(); ++i) {
    const v1::PairResult& p = run.pairs(i);
    if (p.retest() != retests) continue;
    Measurement x;
    if (!BandwidthFigure(p, &x.kind, &x.gbps) && !LatencyFigure(p, &x.kind, &x.gbps)) continue;
    x.latency =
        p.result().transfer().op() == v1::RR_LAT || p.result().transfer().op() == v1::WRITE_LAT;
    x.cv = FigureCv(p);
    x.from = index.at(p.from_node());
    x.to = index.at(p.to_node());
    x.rail = RailIndex(*nodes[x.to], p.rail());
    m.push_back(x);
    if (pair_of) pair_of->push_back(i);
  }
  return m;
}

// Runs the retests, each node in one job a round, a control pair of good
// nodes beside them when two are free; records each suspect's partner and
// retest round (-2: not retested).
void RunRetests(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                std::vector<Retest> pending, const std::vector<int>& good,
                const v1::RunStageRequest& request, const Profile& profile, absl::Time deadline,
                const ProgressFn& progress, bool chatty, std::vector<int>* partner,
                std::vector<uint32_t>* round_of) {
  uint32_t retest_round = run->rounds();
  while (!pending.empty() && absl::Now() < deadline) {
    std::set<int> busy;
    std::vector<Retest> now, later;
    for (Retest& t : pending) {
      if (busy.count(t.job.a) || (t.job.b >= 0 && busy.count(t.job.b))) {
        later.push_back(t);
        continue;
      }
      if (t.job.b < 0) {  // a node or rail suspect: the first free good node
        auto g = std::find_if(good.begin(), good.end(), [&](int n) { return !busy.count(n); });
        if (g == good.end()) {
          if (!busy.empty()) later.push_back(t);  // good nodes are busy: next round
          continue;                               // none at all: not retested
        }
        t.job.b = *g;
        t.known_good = *g;
      }
      busy.insert(t.job.a);
      busy.insert(t.job.b);
      now.push_back(t);
    }
    if (now.empty()) break;
    std::vector<int> free_good;
    for (int g : good) {
      if (!busy.count(g)) free_good.push_back(g);
    }
    if (free_good.size() >= 2) {
      Retest control;
      control.control = true;
      control.job = {free_good[0], free_good[1], {}};
      now.push_back(control);
    }
    ++retest_round;
    std::vector<PairJob> jobs;
    for (const Retest& t : now) jobs.push_back(t.job);
    progress(absl::StrCat("retest ", retest_round - run->rounds(), ": ",
                          now.size() - (free_good.size() >= 2), " suspects",
                          free_good.size() >= 2 ? " and a control pair" : ""));
    RunPairs(run, nodes, jobs, retest_round, true, request, deadline, progress, chatty,
             /*latency=*/profile.Section<ClusterRules>().latency, /*path_mtu=*/false);
    for (const Retest& t : now) {
      if (t.control) continue;
      (*partner)[t.suspect] = t.known_good;
      (*round_of)[t.suspect] = retest_round;
    }
    pending = std::move(later);
  }
}

// Directions whose first measurement shows a gap that could FAIL
// (asymmetry, below the bar) and whose ends are not suspects (those are
// retested against known-good nodes): the pair again, before any FAIL.
void RetestGaps(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                const std::set<int>& tainted, const v1::RunStageRequest& request,
                const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                bool chatty) {
  std::map<std::string, int> index;
  for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i]->node()] = static_cast<int>(i);
  std::map<std::pair<int, int>, std::set<int>> wanted;  // unordered pair -> rails
  for (const PairPlace& place : PlacesToRetest(profile, *run)) {
    const int a = index.at(place.from), b = index.at(place.to);
    if (tainted.count(a) || tainted.count(b)) continue;
    wanted[{std::min(a, b), std::max(a, b)}].insert(RailIndex(*nodes[b], place.rail));
  }
  uint32_t round = run->rounds();
  for (const v1::PairResult& p : run->pairs()) round = std::max(round, p.round());
  while (!wanted.empty() && absl::Now() < deadline) {
    std::set<int> busy;
    std::vector<PairJob> jobs;
    for (auto it = wanted.begin(); it != wanted.end();) {
      const auto [a, b] = it->first;
      if (busy.count(a) || busy.count(b)) {
        ++it;
        continue;
      }
      busy.insert(a);
      busy.insert(b);
      jobs.push_back({a, b, {it->second.begin(), it->second.end()}});
      it = wanted.erase(it);
    }
    progress(absl::StrCat("retest of ", jobs.size(), " pair(s) with a gap"));
    RunPairs(run, nodes, jobs, ++round, true, request, deadline, progress, chatty,
             /*latency=*/false, /*path_mtu=*/false);
  }
}

// The pattern's rounds, each pair measured once: a resumed run keeps the
// pairs it measured before it was interrupted.
void MeasureRounds(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                   const std::vector<bool>& usable, const v1::RunStageRequest& request,
                   const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                   const CheckpointFn& checkpoint) {
  const PairingPattern pattern =
      request.pattern() == "ring" ? PairingPattern::kRing : PairingPattern::kAllPairs;
  run->set_pattern(pattern == PairingPattern::kRing ? "ring" : "all-pairs");
  const std::vector<Round> rounds = Rounds(pattern, static_cast<int>(nodes.size()));
  const bool chatty = nodes.size() <= kChattyUpTo;
  std::set<std::pair<std::string, std::string>> measured;
  for (const v1::PairResult& p : run->pairs()) {
    if (p.retest()) continue;
    measured.insert({std::min(p.from_node(), p.to_node()), std::max(p.from_node(), p.to_node())});
  }
  for (size_t r = 0; r < rounds.size(); ++r) {
    if (absl::Now() >= deadline) {
      AddFinding(run->mutable_findings(), findings::kClusterIncomplete.code, "cluster",
                 absl::StrCat("the stage deadline passed after ", r, " of ", rounds.size(),
                              " rounds; the pairs of the rest were not measured"));
      break;
    }
    std::vector<PairJob> jobs;
    size_t kept = 0;
    for (auto [a, b] : rounds[r]) {
      const std::string& x = nodes[a]->node();
      const std::string& y = nodes[b]->node();
      if (measured.count({std::min(x, y), std::max(x, y)})) {
        ++kept;
      } else if (usable[a] && usable[b]) {
        jobs.push_back({a, b, {}});
      }
    }
    progress(absl::StrCat("round ", r + 1, "/", rounds.size(), ": ", jobs.size(), " pairs",
                          kept ? absl::StrCat(" (", kept, " kept from before)") : ""));
    RunPairs(run, nodes, jobs, static_cast<uint32_t>(r + 1), false, request, deadline, progress,
             chatty, /*latency=*/profile.Section<ClusterRules>().latency, /*path_mtu=*/true);
    run->set_rounds(static_cast<uint32_t>(r + 1));
    checkpoint(*run);
  }
}

// What blame is judged from: the rounds' figures, each kind's peer
// reference, the rules, and the nodes a suspect touches (not known good).
struct Blame {
  std::map<std::string, int> index;  // node name -> index in nodes
  std::vector<int> pair_of;          // measurement -> index in run->pairs()
  std::vector<Measurement> m;
  BlameRules rules;
  std::map<std::string, PeerReference> refs;
  std::set<int> tainted;
};

// One suspect's retest as figures: the pairs of its round between the
// suspect's ends on the rails in scope, and the control pair of good nodes
// measured beside it.
struct RetestFigures {
  std::vector<std::string> again, control;
  bool low_again = false, control_low = false;
};

RetestFigures RetestFiguresOf(const v1::StageRun& run,
                              const std::vector<std::shared_ptr<AgentSession>>& nodes,
                              const Blame& b, const Suspect& s, int partner, uint32_t round) {
  RetestFigures f;
  std::vector<int> retest_pairs;
  const std::vector<Measurement> retests = Measurements(run, nodes, b.index, true, &retest_pairs);
  for (size_t k = 0; k < retests.size(); ++k) {
    const v1::PairResult& p = run.pairs(retest_pairs[k]);
    const Measurement& x = retests[k];
    if (partner < 0 || p.round() != round || !b.refs.count(x.kind)) continue;
    const bool ours =
        (x.from == s.node && x.to == partner) || (x.to == s.node && x.from == partner);
    if (!ours) {
      if (!b.tainted.count(x.from) && !b.tainted.count(x.to)) {
        f.control.push_back(Figure(p));
        f.control_low |= IsLow(x, b.refs.at(x.kind), b.rules);
      }
      continue;
    }
    if (s.rail >= 0 && x.rail != s.rail) continue;
    f.again.push_back(Figure(p));
    f.low_again |= IsLow(x, b.refs.at(x.kind), b.rules);
  }
  return f;
}

// The references that convicted a suspect: bandwidth, latency, or both.
std::string ConvictingReferences(const Blame& b, const Suspect& s) {
  std::vector<std::string> bars;
  std::set<std::string> kinds;
  for (int e : s.evidence) kinds.insert(b.m[e].kind);
  for (const std::string& kind : kinds) {
    const PeerReference& ref = b.refs.at(kind);
    const bool latency = std::any_of(s.evidence.begin(), s.evidence.end(),
                                     [&](int e) { return b.m[e].kind == kind && b.m[e].latency; });
    bars.push_back(latency ? absl::StrFormat("%s: the peers' reference %.1f us, bar x%.1f, spread "
                                             "%.0f%%",
                                             kind, ref.value, b.rules.max_latency_ratio,
                                             100 * ref.spread)
                           : absl::StrFormat("%s: the peers' reference %.2f Gb/s, bar %.0f%%, "
                                             "spread %.0f%%",
                                             kind, ref.value, 100 * b.rules.min_fraction_of_peers,
                                             100 * ref.spread));
  }
  return absl::StrJoin(bars, "; ");
}

// The suspect's record in the run (who, what was low, how it was retested).
v1::Suspect* RecordSuspect(v1::StageRun* run,
                           const std::vector<std::shared_ptr<AgentSession>>& nodes,
                           const Suspect& s, int retest_partner) {
  AgentSession& node = *nodes[s.node];
  v1::Suspect* out = run->add_suspects();
  out->set_kind(s.kind == Suspect::kNode ? "node" : s.kind == Suspect::kRail ? "rail" : "link");
  out->set_node(node.node());
  if (s.other >= 0) out->set_other_node(nodes[s.other]->node());
  if (s.rail >= 0) out->set_rail(RailName(node, s.rail));
  out->set_low(s.low);
  out->set_partners(s.partners);
  out->set_retested(retest_partner != -2);
  if (retest_partner >= 0) out->set_known_good(nodes[retest_partner]->node());
  return out;
}

// A suspect judged: recorded, and a SUSPECT_* finding that FAILs only when
// its retest was low and the good nodes measured beside it were not (a
// moment when everything is slow blames nobody; nothing FAILs on one
// sample).
void JudgeSuspect(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                  const Blame& b, const Suspect& s, int retest_partner, uint32_t retest_round,
                  bool retest_enabled) {
  AgentSession& node = *nodes[s.node];
  v1::Suspect* out = RecordSuspect(run, nodes, s, retest_partner);
  std::vector<std::string> evidence;
  for (size_t k = 0; k < s.evidence.size() && k < 8; ++k) {
    evidence.push_back(Figure(run->pairs(b.pair_of[s.evidence[k]])));
  }
  if (s.evidence.size() > 8) evidence.push_back(absl::StrCat("+", s.evidence.size() - 8, " more"));
  const int partner = s.kind == Suspect::kLink ? s.other : retest_partner;
  const RetestFigures f = RetestFiguresOf(*run, nodes, b, s, partner, retest_round);
  const bool confirmed = f.low_again && !f.control_low;
  out->set_confirmed(confirmed);
  const char* code = s.kind == Suspect::kNode   ? findings::kSuspectNode.code
                     : s.kind == Suspect::kRail ? findings::kSuspectRail.code
                                                : findings::kSuspectLink.code;
  const std::string who =
      s.kind == Suspect::kNode ? node.node()
      : s.kind == Suspect::kRail
          ? absl::StrCat(node.node(), ":", RailName(node, s.rail))
          : absl::StrCat(node.node(), "<->", nodes[s.other]->node(), ":", RailName(node, s.rail));
  const std::string bars = ConvictingReferences(b, s);
  std::string message =
      s.kind == Suspect::kLink
          ? absl::StrFormat(
                "%s measured low while both ends were fine with other partners (%s; "
                "%s)",
                who, absl::StrJoin(evidence, "; "), bars)
          : absl::StrFormat("%s measured low with %d of %d partners (%s; %s)", who, s.low,
                            s.partners, absl::StrJoin(evidence, "; "), bars);
  const std::string against =
      s.kind == Suspect::kLink || partner < 0 ? "" : " against " + nodes[partner]->node();
  if (retest_partner == -2) {
    absl::StrAppend(&message, retest_enabled
                                  ? "; not retested: no node outside the suspects was free"
                                  : "; not retested (cluster.retest: false)");
  } else if (confirmed) {
    absl::StrAppend(
        &message, "; the retest", against, " confirms it: ", absl::StrJoin(f.again, "; "),
        f.control.empty() ? ""
                          : absl::StrCat(" (control pair: ", absl::StrJoin(f.control, "; "), ")"));
  } else if (f.low_again) {
    absl::StrAppend(&message, "; the retest", against, " was low again (",
                    absl::StrJoin(f.again, "; "), ") but so was the control pair of good nodes (",
                    absl::StrJoin(f.control, "; "), "): the moment was slow, not only ", who);
  } else {
    absl::StrAppend(&message, "; the retest", against, " did not reproduce it (",
                    f.again.empty() ? "nothing measured" : absl::StrJoin(f.again, "; "),
                    "): transient, or load from elsewhere");
  }
  AddFinding(run->mutable_findings(), code, confirmed ? v1::FAIL : v1::WARN, who, message);
}

// Retests: a rail suspect's rails of one node go in one job; rounds of
// retests run at once, each node (suspect or good) in one job a round.
std::vector<Retest> RetestsOf(const std::vector<Suspect>& suspects) {
  std::vector<Retest> pending;
  for (size_t i = 0; i < suspects.size(); ++i) {
    const Suspect& s = suspects[i];
    Retest t;
    t.suspect = i;
    if (s.kind == Suspect::kLink) {
      t.job = {s.node, s.other, {s.rail}};
    } else {
      t.job = {s.node, -1,
               s.kind == Suspect::kRail ? std::vector<int>{s.rail} : std::vector<int>{}};
    }
    pending.push_back(t);
  }
  return pending;
}

}  // namespace

void RunClusterRounds(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                      const std::vector<bool>& usable, const v1::RunStageRequest& request,
                      const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                      const CheckpointFn& checkpoint) {
  MeasureRounds(run, nodes, usable, request, profile, deadline, progress, checkpoint);
  const bool chatty = nodes.size() <= kChattyUpTo;
  // Blame, from the rounds' figures against each kind's peer reference.
  Blame b;
  for (size_t i = 0; i < nodes.size(); ++i) b.index[nodes[i]->node()] = static_cast<int>(i);
  b.m = Measurements(*run, nodes, b.index, false, &b.pair_of);
  b.rules = {profile.Section<TransferBars>().min_fraction_of_peers,
             profile.Section<ClusterRules>().suspect_share,
             profile.Section<ClusterRules>().max_latency_ratio,
             profile.Section<TransferBars>().noise_sigmas};
  const std::vector<Suspect> suspects = FindSuspects(b.m, b.rules);
  b.refs = ReferencesOf(b.m);
  // Known good: answered, connected, and suspect of nothing.
  for (const Suspect& s : suspects) {
    b.tainted.insert(s.node);
    if (s.other >= 0) b.tainted.insert(s.other);
  }
  std::vector<int> good;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (usable[i] && nodes[i]->alive() && !b.tainted.count(static_cast<int>(i))) {
      good.push_back(static_cast<int>(i));
    }
  }
  const bool retest = profile.Section<ClusterRules>().retest;
  std::vector<int> retest_partner(suspects.size(), -2);  // -2: not retested
  std::vector<uint32_t> retest_round(suspects.size(), 0);
  RunRetests(run, nodes, retest ? RetestsOf(suspects) : std::vector<Retest>{}, good, request,
             profile, deadline, progress, chatty, &retest_partner, &retest_round);
  RetestGaps(run, nodes, b.tainted, request, profile, deadline, progress, chatty);
  for (size_t i = 0; i < suspects.size(); ++i) {
    JudgeSuspect(run, nodes, b, suspects[i], retest_partner[i], retest_round[i], retest);
  }
}

void RunClusterSoak(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                    const std::vector<bool>& usable, const v1::RunStageRequest& request,
                    absl::Time until, absl::Time deadline, const ProgressFn& progress,
                    const CheckpointFn& checkpoint) {
  const PairingPattern pattern =
      run->pattern() == "ring" ? PairingPattern::kRing : PairingPattern::kAllPairs;
  const std::vector<Round> rounds = Rounds(pattern, static_cast<int>(nodes.size()));
  uint32_t round = run->rounds();
  for (const v1::PairResult& p : run->pairs()) round = std::max(round, p.round());
  for (int pass = 2; absl::Now() < until && absl::Now() < deadline; ++pass) {
    const int before = run->pairs_size();
    for (size_t r = 0; r < rounds.size() && absl::Now() < until && absl::Now() < deadline; ++r) {
      std::vector<PairJob> jobs;
      for (auto [a, b] : rounds[r]) {
        if (usable[a] && usable[b] && nodes[a]->alive() && nodes[b]->alive()) {
          jobs.push_back({a, b, {}});
        }
      }
      progress(absl::StrFormat("soak pass %d, round %d/%d (%.0f s left)", pass, r + 1,
                               rounds.size(), absl::ToDoubleSeconds(until - absl::Now())));
      // Bandwidth only: the path MTU and latency were the first pass's.
      RunPairs(run, nodes, jobs, ++round, false, request, deadline, progress,
               nodes.size() <= kChattyUpTo, /*latency=*/false, /*path_mtu=*/false);
    }
    checkpoint(*run);
    if (run->pairs_size() == before) return;  // nothing measured: the nodes said why
  }
}

absl::Status ClusterStage::CheckRequest(const v1::RunStageRequest&, size_t nodes,
                                        const Profile&) const {
  if (nodes >= 2) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the cluster stage needs at least 2 nodes, got ", nodes));
}

void ClusterStage::Measure(const StageContext& c) {
  RunClusterRounds(c.run, c.nodes, c.usable, c.request, c.profile, c.deadline, c.progress,
                   c.checkpoint);
  if (c.request.soak_s() > 0) {
    RunClusterSoak(c.run, c.nodes, c.usable, c.request,
                   TimeOf(c.run->started()) + absl::Seconds(c.request.soak_s()), c.deadline,
                   c.progress, c.checkpoint);
  }
}

void ClusterStage::Judge(const v1::RunStageRequest& request, const Profile& profile,
                         v1::StageRun* run) const {
  if (request.soak_s() > 0) JudgeSoak(profile.Section<SoakRules>(), request.soak_s(), run);
}

}  // namespace nodeprobe::coordinator
