#include "coordinator/stages/congestion/congestion_stage.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/rail_rate.h"
#include "coordinator/stages/congestion/congestion_findings.h"
#include "coordinator/stages/congestion/congestion_profile.h"
#include "platform/bounded_for.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/transfer/transfer_findings.h"
#include "probes/transfer/transfer_profile.h"
#include "probes/transfer/transfer_stats.h"

namespace nodeprobe::coordinator {
namespace {

struct Flow {
  int from = 0;
  int to = 0;
  std::string serve_id;
  std::string go_id;
  bool alive = true;
};

std::string RailOf(const AgentSession& s) {
  return s.registration().rails_size() > kFirstRail ? s.registration().rails(kFirstRail).name()
                                                    : "tcp";
}

// Every flow at once; `during` runs once they are all started. Returns the
// flows that finished as pairs (from -> to), their own bandwidth bar taken
// off: under congestion a flow gets a share, and the receiver's sum is
// what is judged.
std::vector<v1::PairResult> AllAtOnce(v1::StageRun* part,
                                      const std::vector<std::shared_ptr<AgentSession>>& nodes,
                                      std::vector<Flow> flows, double seconds, absl::Time deadline,
                                      const Profile& profile, const std::function<void()>& during) {
  const v1::AcceptanceProfile& ap = part->profile();
  for (Flow& f : flows) {
    v1::Task serve = ServeTask(*nodes[f.to], kFirstRail);
    f.serve_id = serve.task_id();
    if (absl::Status s = Send(*nodes[f.to], serve, deadline, ap); !s.ok()) {
      NodeFailed(part, nodes[f.to]->node(), s, "congestion set-up");
      f.alive = false;
    }
  }
  std::vector<uint32_t> ports(flows.size(), 0);
  for (size_t i = 0; i < flows.size(); ++i) {
    if (!flows[i].alive) continue;
    absl::StatusOr<v1::AgentMessage> ready = nodes[flows[i].to]->Await(flows[i].serve_id, deadline);
    if (!ready.ok()) {
      NodeFailed(part, nodes[flows[i].to]->node(), ready.status(), "congestion set-up");
      flows[i].alive = false;
      continue;
    }
    ports[i] = ready->endpoint().port();
  }
  for (size_t i = 0; i < flows.size(); ++i) {
    Flow& f = flows[i];
    if (!f.alive) continue;
    AgentSession& from = *nodes[f.from];
    AgentSession& to = *nodes[f.to];
    v1::Task go = IntoRailTask(ap, from, to, kFirstRail, ports[i], false, seconds);
    f.go_id = go.task_id();
    if (absl::Status s = Send(from, go, deadline, ap); !s.ok()) {
      NodeFailed(part, from.node(), s, "a congestion flow");
      f.alive = false;
    }
  }
  during();
  std::vector<v1::PairResult> out;
  for (Flow& f : flows) {
    if (f.alive) {
      absl::StatusOr<v1::AgentMessage> result = nodes[f.from]->Await(f.go_id, deadline);
      if (!result.ok()) {
        NodeFailed(part, nodes[f.from]->node(), result.status(), "a congestion flow");
      } else {
        v1::PairResult p;
        p.set_from_node(nodes[f.from]->node());
        p.set_to_node(nodes[f.to]->node());
        p.set_rail(RailOf(*nodes[f.to]));
        *p.mutable_result() = result->result().result();
        v1::ProbeResult* r = p.mutable_result();
        auto* findings = r->mutable_findings();
        findings->erase(std::remove_if(findings->begin(), findings->end(),
                                       [](const v1::Finding& x) {
                                         return x.code() == findings::kTransferBelowExpected.code;
                                       }),
                        findings->end());
        if (r->has_transfer()) {
          r->mutable_transfer()->set_expected(0);
          r->mutable_transfer()->set_expected_source("none");
          r->mutable_transfer()->set_expected_basis(
              "a share of a congested receiver: the receiver's sum is judged");
        }
        FinalizeResult(profile, r);
        out.push_back(std::move(p));
      }
    }
    Cancel(*nodes[f.to], f.serve_id);
  }
  return out;
}

v1::CongestionResult Received(const std::string& pattern, const AgentSession& receiver,
                              std::vector<v1::PairResult> flows) {
  v1::CongestionResult r;
  r.set_pattern(pattern);
  r.set_receiver(receiver.node());
  r.set_rail(RailOf(receiver));
  for (v1::PairResult& f : flows) {
    r.add_senders(f.from_node());
    *r.add_flows() = std::move(f);
  }
  return r;
}

// The receiving rail's goodput (coordinator/rail_rate.h) and its basis.
double RailRate(const AgentSession& s, std::string* basis) {
  if (s.registration().rails_size() <= kFirstRail) return 0;
  return RailGoodputGbps(s.registration().rails(kFirstRail), basis);
}

// The group's episodes, one after another.
void RunGroup(v1::StageRun* part, const std::vector<std::shared_ptr<AgentSession>>& nodes,
              const std::vector<int>& group, const Profile& profile, double seconds,
              absl::Time deadline, const ProgressFn& progress) {
  const int g = static_cast<int>(group.size());
  const CongestionRules& rules = profile.Section<CongestionRules>();
  if (rules.incast) {
    const int k = rules.incast_senders > 0 ? std::min(rules.incast_senders, g - 1) : g - 1;
    for (int i = 0; i < g && absl::Now() < deadline; ++i) {
      AgentSession& receiver = *nodes[group[i]];
      std::vector<Flow> flows;
      for (int j = 1; j <= k; ++j) flows.push_back({group[(i + j) % g], group[i], "", "", true});
      progress(absl::StrCat("incast ", k, " -> ", receiver.node()));
      AgentSession& prober = *nodes[flows[0].from];
      std::optional<v1::LatencyStats> idle = LatencyProbe(part, prober, receiver, 1, deadline);
      std::optional<v1::LatencyStats> loaded;
      std::vector<v1::PairResult> got =
          AllAtOnce(part, nodes, flows, seconds, deadline, profile, [&] {
            // Into the load's steady middle: a quarter in, half its length.
            absl::SleepFor(absl::Seconds(seconds / 4));
            loaded = LatencyProbe(part, prober, receiver, seconds / 2, deadline);
          });
      v1::CongestionResult r = Received("incast", receiver, std::move(got));
      if (idle) *r.mutable_idle_latency() = *idle;
      if (loaded) *r.mutable_loaded_latency() = *loaded;
      std::string basis;
      const double rate = RailRate(receiver, &basis);
      JudgeCongestion(profile, rate, &r, basis);
      *part->add_congestion() = std::move(r);
    }
  }
  if (rules.all_to_all && absl::Now() < deadline) {
    std::vector<Flow> flows;
    for (int a : group) {
      for (int b : group) {
        if (a != b) flows.push_back({a, b, "", "", true});
      }
    }
    progress(absl::StrCat("all-to-all among ", g, " nodes: ", flows.size(), " flows"));
    std::vector<v1::PairResult> got =
        AllAtOnce(part, nodes, flows, seconds, deadline, profile, [] {});
    for (int b : group) {
      std::vector<v1::PairResult> into;
      for (const v1::PairResult& p : got) {
        if (p.to_node() == nodes[b]->node()) into.push_back(p);
      }
      v1::CongestionResult r = Received("all-to-all", *nodes[b], std::move(into));
      std::string basis;
      const double rate = RailRate(*nodes[b], &basis);
      JudgeCongestion(profile, rate, &r, basis);
      *part->add_congestion() = std::move(r);
    }
  }
}

// A finding about R's receiver and rail.
void Add(v1::CongestionResult* r, std::string_view code, std::string message) {
  AddFinding(r->mutable_findings(), code, absl::StrCat(r->receiver(), ":", r->rail()),
             std::move(message));
}

}  // namespace

double JainIndex(const std::vector<double>& x) {
  double sum = 0, squares = 0;
  for (double v : x) {
    sum += v;
    squares += v * v;
  }
  return squares > 0 ? sum * sum / (static_cast<double>(x.size()) * squares) : 0;
}

std::vector<std::vector<int>> CongestionGroups(int n, int size) {
  std::vector<std::vector<int>> groups;
  for (int i = 0; i < n; i += size) {
    std::vector<int> g;
    for (int j = i; j < std::min(n, i + size); ++j) g.push_back(j);
    if (g.size() < 3 && !groups.empty()) {
      groups.back().insert(groups.back().end(), g.begin(), g.end());
    } else {
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

std::vector<double> CommonWindowRates(const std::vector<const v1::TransferResult*>& rows,
                                      std::string* basis) {
  constexpr int64_t kInterval = transfer::kIntervalNs;  // the rates' step
  int64_t from = 0, to = 0;
  for (const v1::TransferResult* row : rows) {
    if (row->intervals_start_unix_ns() <= 0 || row->interval_gbps_size() == 0) {
      *basis = "each flow over its own run (a flow has no stamped 100 ms rates: an older agent)";
      return {};
    }
    const int64_t start = row->intervals_start_unix_ns();
    const int64_t end = start + row->interval_gbps_size() * kInterval;
    from = from == 0 ? start : std::max(from, start);
    to = to == 0 ? end : std::min(to, end);
  }
  // A 100 ms interval counts when most of it lies in the window (clocks of
  // synced hosts agree within a few ms).
  std::vector<double> out;
  for (const v1::TransferResult* row : rows) {
    double sum = 0;
    int n = 0;
    for (int k = 0; k < row->interval_gbps_size(); ++k) {
      const int64_t mid = row->intervals_start_unix_ns() + k * kInterval + kInterval / 2;
      if (mid < from || mid > to) continue;
      sum += row->interval_gbps(k);
      ++n;
    }
    if (n < 2) {
      *basis = absl::StrFormat(
          "each flow over its own run (the flows shared only %.0f ms: "
          "started too far apart to line up)",
          std::max<double>(0, (to - from) / 1e6));
      return {};
    }
    out.push_back(sum / n);
  }
  *basis = absl::StrFormat(
      "the %.1f s every flow ran in, lined up by each flow's first post "
      "(its 100 ms rates there, averaged)",
      (to - from) / 1e9);
  return out;
}

// The bar a receiver's aggregate is held to: the profile's one-stream
// bar for its transport and op, else the receiver rail's goodput x
// transfer.min_fraction_of_line_rate, else none (and why).
void SetCongestionBar(const Profile& profile, v1::Transport transport, v1::TransferOp op,
                      double rail_rate_gbps, const std::string& rail_basis,
                      v1::CongestionResult* r) {
  const TransferBars& bars = profile.Section<TransferBars>();
  const std::optional<double>& profile_bar =
      transport == v1::RDMA ? bars.rdma_write_bw_min_gbps : bars.tcp_stream_min_gbps;
  if (profile_bar && op == (transport == v1::RDMA ? v1::WRITE_BW : v1::STREAM_BW)) {
    r->set_expected_gbps(*profile_bar);
    r->set_expected_basis(absl::StrCat("the profile's transfer.",
                                       transport == v1::RDMA ? "rdma_write_bw" : "tcp_stream",
                                       "_min_gbps: a receiver's link carries at least one "
                                       "stream's bar under load"));
  } else if (rail_rate_gbps > 0) {
    r->set_expected_gbps(rail_rate_gbps * bars.min_fraction_of_line_rate);
    r->set_expected_basis(absl::StrFormat(
        "the receiver rail's goodput %.1f Gb/s x %.2f (transfer.min_fraction_of_line_rate)%s",
        rail_rate_gbps, bars.min_fraction_of_line_rate,
        rail_basis.empty() ? "" : absl::StrCat("; ", rail_basis)));
  } else {
    r->set_expected_basis(
        "no bar: the receiver's link speed is unknown (veth, a virtual NIC); set "
        "transfer.tcp_stream_min_gbps in the profile");
  }
}

void JudgeCongestion(const Profile& profile, double rail_rate_gbps, v1::CongestionResult* r,
                     const std::string& rail_basis) {
  std::vector<double> bw;
  std::vector<const v1::TransferResult*> rows;
  v1::Transport transport = v1::TCP;
  v1::TransferOp op = v1::STREAM_BW;
  for (const v1::PairResult& p : r->flows()) {
    std::string kind;
    double g = 0;
    if (!BandwidthFigure(p, &kind, &g)) continue;
    bw.push_back(g);
    rows.push_back(&p.result().transfer().results(0));
    transport = p.result().transfer().transport();
    op = p.result().transfer().op();
  }
  // A flow that started late runs partly alone and fast: the sum and the
  // fairness are taken over the window all flows shared.
  std::string basis;
  if (std::vector<double> aligned = CommonWindowRates(rows, &basis); !aligned.empty()) {
    bw = std::move(aligned);
  }
  r->set_window_basis(basis);
  r->set_aggregate_gbps(std::accumulate(bw.begin(), bw.end(), 0.0));
  r->set_fairness(JainIndex(bw));

  SetCongestionBar(profile, transport, op, rail_rate_gbps, rail_basis, r);
  if (bw.empty()) {
    AddFinding(r->mutable_findings(), findings::kNothingMeasured.code, v1::ERROR,
               absl::StrCat(r->receiver(), ":", r->rail()),
               absl::StrCat("no flow into ", r->receiver(), " finished"));
  }
  if (!bw.empty() && r->expected_gbps() > 0 && r->aggregate_gbps() < r->expected_gbps()) {
    Add(r, findings::kCongestionAggregateBelowExpected.code,
        absl::StrFormat(
            "%s received %.2f Gb/s from %d senders at once (%s), below its bar %.2f Gb/s (%s)",
            r->receiver(), r->aggregate_gbps(), static_cast<int>(bw.size()), r->pattern(),
            r->expected_gbps(), r->expected_basis()));
  }
  const double min_fair = profile.Section<CongestionRules>().min_fairness;
  if (bw.size() >= 2 && r->fairness() < min_fair) {
    std::vector<std::string> each;
    for (const v1::PairResult& p : r->flows()) {
      std::string kind;
      double g = 0;
      if (BandwidthFigure(p, &kind, &g))
        each.push_back(absl::StrFormat("%s %.2f", p.from_node(), g));
    }
    Add(r, findings::kCongestionUnfair.code,
        absl::StrFormat("the flows into %s shared it unevenly: Jain's index %.2f (bar %.2f; "
                        "Gb/s: %s)",
                        r->receiver(), r->fairness(), min_fair, absl::StrJoin(each, ", ")));
  }
  const double idle = r->idle_latency().p99_us();
  const double loaded = r->loaded_latency().p99_us();
  const double ratio = profile.Section<CongestionRules>().max_latency_ratio;
  if (idle > 0 && loaded > idle * ratio) {
    Add(r, findings::kCongestionLatency.code,
        absl::StrFormat("p99 latency into %s rose from %.1f us idle to %.1f us under load "
                        "(x%.1f; bar x%.0f; p99.9 %.1f -> %.1f us)",
                        r->receiver(), idle, loaded, loaded / idle, ratio,
                        r->idle_latency().p999_us(), r->loaded_latency().p999_us()));
  }
  v1::Verdict v = v1::PASS;
  for (const v1::Finding& f : r->findings()) v = WorseVerdict(v, f.severity());
  for (const v1::PairResult& p : r->flows()) v = WorseVerdict(v, p.result().verdict());
  r->set_verdict(v);
}

void RunCongestion(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                   const std::vector<bool>& usable, const v1::RunStageRequest& request,
                   const Profile& profile, absl::Time deadline, const ProgressFn& progress) {
  std::vector<std::shared_ptr<AgentSession>> live;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (usable[i] && nodes[i]->alive()) live.push_back(nodes[i]);
  }
  if (live.size() < 3) {
    AddFinding(
        run->mutable_findings(), findings::kNothingMeasured.code, v1::ERROR, "congestion",
        absl::StrCat("congestion needs 3 nodes that answered their probes; ", live.size(), " did"));
    return;
  }
  const double seconds = request.transfer_seconds() ? request.transfer_seconds() : 3;
  const auto groups = CongestionGroups(static_cast<int>(live.size()),
                                       profile.Section<CongestionRules>().group_size);
  std::vector<v1::StageRun> parts(groups.size());
  for (v1::StageRun& p : parts) *p.mutable_profile() = run->profile();
  platform::BoundedFor(groups.size(), kMaxConcurrentAsks, [&](size_t i) {
    RunGroup(&parts[i], live, groups[i], profile, seconds, deadline, progress);
  });
  for (v1::StageRun& p : parts) AppendOnce(run, std::move(p));
}

absl::Status CongestionStage::CheckRequest(const v1::RunStageRequest&, size_t nodes,
                                           const Profile&) const {
  if (nodes >= 3) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the congestion stage needs at least 3 nodes, got ", nodes));
}

void CongestionStage::Measure(const StageContext& c) {
  RunCongestion(c.run, c.nodes, c.usable, c.request, c.profile, c.deadline, c.progress);
}

}  // namespace nodeprobe::coordinator
