#include "coordinator/pair_transfers.h"

#include <google/protobuf/util/time_util.h>

#include <algorithm>
#include <atomic>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/record_check.h"
#include "probes/cabling/cabling_profile.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/nccl_profile.h"
#include "probes/roce_config/roce_profile.h"

namespace nodeprobe::coordinator {

// The peer's rail of the same name as `a`'s rail `rail` (-1: none).
int PeerRail(const AgentSession& a, int rail, const AgentSession& b);
// A rail's name ("tcp" for a node without rails), and whether it has an
// address of its own.
std::string RailName(const AgentSession& s, int rail);
bool RailHasAddress(const AgentSession& s, int rail);

namespace {

// One direction of one rail pair: `to` serves on its rail `to_rail`,
// `from` runs the transfer from `from_rail`. With `latency`, a one-second
// latency test (RR_LAT, or WRITE_LAT on RDMA).
absl::Status Transfer(v1::StageRun* run, AgentSession& from, int from_rail, AgentSession& to,
                      int to_rail, const v1::RunStageRequest& req, absl::Time deadline,
                      bool latency = false) {
  v1::Task serve = ServeTask(to, to_rail);
  // --gpu-memory: each end's buffer on its rail's GPU (bandwidth only; the
  // latency ping-pong polls host memory).
  const bool gpu = req.gpu_memory() && !latency && RdmaRail(from, from_rail, to, to_rail);
  if (gpu) OnRailGpu(to, to_rail, &serve);
  absl::StatusOr<v1::AgentMessage> ready = Ask(to, serve, deadline, run->profile());
  if (!ready.ok()) {
    NodeFailed(run, to.node(), ready.status(), "transfer set-up");
    return ready.status();
  }
  // In the class NCCL will run in (the profile's NCCL_IB_TC / NCCL_IB_SL),
  // so the rail is measured where the collectives will be.
  v1::Task go = RailTransferTask(
      run->profile(), from, from_rail, to, to_rail, ready->endpoint().port(), latency,
      latency ? 1 : (req.transfer_seconds() ? req.transfer_seconds() : 3));
  if (gpu) OnRailGpu(from, from_rail, &go);
  const absl::Time asked = absl::Now();
  absl::StatusOr<v1::AgentMessage> result = Ask(from, go, deadline, run->profile());
  Cancel(to, serve.task_id());
  if (!result.ok()) {
    NodeFailed(run, from.node(), result.status(), "a transfer");
    return result.status();
  }
  v1::PairResult* pair = run->add_pairs();
  pair->set_from_node(from.node());
  pair->set_to_node(to.node());
  pair->set_rail(MeasuredPath(from, from_rail, to, to_rail));
  *pair->mutable_result() = result->result().result();
  // When it ran, by our clock (the run's), where the worker did not say:
  // a soak's time series is drawn from it.
  v1::ProbeResult* r = pair->mutable_result();
  if (!r->has_started()) *r->mutable_started() = StampOf(asked);
  if (!r->has_finished()) *r->mutable_finished() = StampOf(absl::Now());
  return absl::OkStatus();
}

// The path MTU from `from` to `to`, measured by `from` against `to`'s
// responder.
void PathMtu(v1::StageRun* run, AgentSession& from, AgentSession& to, int rail,
             absl::Time deadline) {
  if (to.registration().mtu_port() == 0) return;  // an agent without a responder
  v1::Task task;
  task.set_task_id(NewTaskId());
  task.mutable_run_path_mtu()->set_peer_host(RailAddress(to, rail));
  task.mutable_run_path_mtu()->set_peer_port(to.registration().mtu_port());
  absl::StatusOr<v1::AgentMessage> result = Ask(from, task, deadline, run->profile());
  if (!result.ok()) {
    NodeFailed(run, from.node(), result.status(), "path-MTU probing");
    return;
  }
  v1::PairResult* pair = run->add_pairs();
  pair->set_from_node(from.node());
  pair->set_to_node(to.node());
  pair->set_rail(RailName(to, rail));
  *pair->mutable_result() = result->result().result();
}

// Does `want` ("all", "mlx5_0:1", "mlx5_0" or a rail's netdev) name rail
// `rail` of `node`? Rails without RDMA are called "tcp".
bool RailNamed(const std::string& want, const AgentSession& node, int rail) {
  if (want == "all") return true;
  const auto& rails = node.registration().rails();
  if (rail >= rails.size()) return want == "tcp";
  const v1::Rail& r = rails[rail];
  return want == r.name() || want == r.rdma_device() || (!r.netdev().empty() && want == r.netdev());
}

}  // namespace

// The profile's rail plan (cabling.expect: netdev -> switch): the netdevs
// that are compute rails; empty without a plan.
std::vector<std::string> RailPlan(const v1::AcceptanceProfile& profile) {
  std::vector<std::string> out;
  if (profile.yaml().empty()) return out;
  absl::StatusOr<Profile> p = ParseProfile(profile.yaml(), profile.source());
  if (!p.ok()) return out;
  for (const auto& [netdev, glob] : p->Section<CablingPlan>().expect) out.push_back(netdev);
  return out;
}

namespace {

bool NamedByAny(const std::vector<std::string>& names, const AgentSession& a, const AgentSession& b,
                int rail) {
  for (const std::string& want : names) {
    if (RailNamed(want, a, rail) || RailNamed(want, b, rail)) return true;
  }
  return false;
}

}  // namespace

// --rails names rails by either node's rail names. Without it, the
// profile's rail plan picks them where it names any rail of the pair (a
// plan written for other nodes picks nothing here, and all rails run).
bool RailSelected(const v1::RunStageRequest& req, const std::vector<std::string>& plan,
                  const AgentSession& a, const AgentSession& b, int rail, int rails) {
  if (req.rails_size() > 0) {
    return NamedByAny({req.rails().begin(), req.rails().end()}, a, b, rail);
  }
  if (plan.empty()) return true;
  for (int r = 0; r < rails; ++r) {
    if (NamedByAny(plan, a, b, r)) return NamedByAny(plan, a, b, rail);
  }
  return true;
}

namespace {}  // namespace

void NodeFailed(v1::StageRun* run, const std::string& node, const absl::Status& s,
                const std::string& during) {
  if (s.code() == absl::StatusCode::kCancelled) {
    // The operator's doing, not the node's (the run says who).
    AddFinding(run->mutable_findings(), findings::kRunCancelled.code, node,
               absl::StrCat("cancelled during ", during, ": ", s.message()));
    return;
  }
  const bool lost = s.code() == absl::StatusCode::kUnavailable;
  AddFinding(run->mutable_findings(),
             lost ? findings::kAgentLost.code : findings::kTaskTimeout.code, node,
             absl::StrCat(node, " ", lost ? "was lost" : "did not answer in time", " during ",
                          during, ": ", s.message()));
}

void AppendOnce(v1::StageRun* run, v1::StageRun part) {
  std::set<std::pair<std::string, std::string>> said;
  for (const v1::Finding& f : run->findings()) said.insert({f.code(), f.device()});
  for (v1::PairResult& p : *part.mutable_pairs()) *run->add_pairs() = std::move(p);
  for (v1::CongestionResult& c : *part.mutable_congestion()) *run->add_congestion() = std::move(c);
  for (v1::Finding& f : *part.mutable_findings()) {
    if (said.insert({f.code(), f.device()}).second) *run->add_findings() = std::move(f);
  }
}

bool RdmaRail(const AgentSession& from, int from_rail, const AgentSession& to, int to_rail) {
  const auto& fr = from.registration().rails();
  const auto& tr = to.registration().rails();
  if (from_rail >= fr.size() || to_rail >= tr.size()) return false;
  const v1::Rail& f = fr[from_rail];
  const v1::Rail& t = tr[to_rail];
  if (f.rdma_device().empty() || t.rdma_device().empty()) return false;
  // InfiniBand addresses by LID: the out-of-band exchange only needs a
  // reachable control address (the agent's own, without IPoIB), as
  // perftest's does. RoCE needs the peer rail's IPv4 (a routable GID).
  if (f.link_layer() == "InfiniBand" && t.link_layer() == "InfiniBand") return true;
  return t.ipv4_size() > 0;
}
bool RdmaRail(const AgentSession& from, const AgentSession& to, int rail) {
  return RdmaRail(from, rail, to, rail);
}

v1::Task ServeTask(const AgentSession& to, int rail) {
  v1::Task serve;
  serve.set_task_id(NewTaskId());
  v1::ServeTransfer* server = serve.mutable_serve_transfer();
  const auto& tr = to.registration().rails();
  if (rail < tr.size() && !tr[rail].rdma_device().empty()) {
    server->set_device(tr[rail].rdma_device());
    server->set_port(tr[rail].port());
  }
  return serve;
}

v1::Task TransferTask(const AgentSession& from, int from_rail, const AgentSession& to, int to_rail,
                      uint32_t server_port, v1::TransferOp op, double seconds) {
  // RDMA when both ends of the rail are RDMA ports that can reach each
  // other; the TCP baseline otherwise. Each end uses its rail's device and
  // port.
  const bool rdma = RdmaRail(from, from_rail, to, to_rail);
  const auto& fr = from.registration().rails();
  v1::Task go;
  go.set_task_id(NewTaskId());
  v1::RunTransfer* t = go.mutable_run_transfer();
  t->set_peer_host(RailAddress(to, to_rail));
  t->set_peer_port(server_port);
  if (rdma) {
    t->set_device(fr[from_rail].rdma_device());
    t->set_port(fr[from_rail].port());
  }
  const bool latency = op == v1::RR_LAT || op == v1::WRITE_LAT;
  if (latency) op = rdma ? v1::WRITE_LAT : v1::RR_LAT;
  t->mutable_request()->set_transport(rdma ? v1::RDMA : v1::TCP);
  t->mutable_request()->set_op(op);
  t->mutable_request()->set_tx_depth(128);
  t->mutable_request()->set_streams(1);
  // Latency ops too: by duration (TCP); RDMA latency runs perftest's 1000
  // round trips for a request by duration (RdmaLatencyIterations).
  t->mutable_request()->set_duration_s(seconds);
  // No sizes: the node uses the op's default message size.
  return go;
}

v1::Task TransferTask(const AgentSession& from, const AgentSession& to, int rail,
                      uint32_t server_port, v1::TransferOp op, double seconds) {
  return TransferTask(from, rail, to, rail, server_port, op, seconds);
}

void SetTrafficClass(const v1::AcceptanceProfile& profile, v1::Task* go) {
  if (profile.yaml().empty() || !go->has_run_transfer() ||
      go->run_transfer().request().transport() != v1::RDMA) {
    return;
  }
  absl::StatusOr<Profile> p = ParseProfile(profile.yaml(), profile.source());
  if (!p.ok()) return;
  v1::TransferRequest* req = go->mutable_run_transfer()->mutable_request();
  // What is measured is the class NCCL will use.
  if (std::optional<int> tos = DesignedTos(*p)) req->set_traffic_class(static_cast<uint32_t>(*tos));
  uint32_t v = 0;
  if (auto sl = p->Section<NcclRules>().env.find("NCCL_IB_SL");
      sl != p->Section<NcclRules>().env.end() && absl::SimpleAtoi(sl->second, &v) && v < 16) {
    req->set_service_level(v);
  }
}

std::string RailName(const AgentSession& s, int rail) {
  return rail < s.registration().rails_size() ? s.registration().rails(rail).name() : "tcp";
}

// Whether `rail` of `s` has an IPv4 address of its own (else RailAddress
// is the agent's management address). A node without rails is "tcp" over
// its management address by design.
bool RailHasAddress(const AgentSession& s, int rail) {
  const auto& rails = s.registration().rails();
  return rail >= rails.size() || rails[rail].ipv4_size() > 0;
}

std::string MeasuredPath(const AgentSession& from, int from_rail, const AgentSession& to,
                         int to_rail) {
  // RDMA on the rail's devices, or TCP to the rail's own address (or a
  // node without rails, "tcp", its one path): the rail's name.
  if (RdmaRail(from, from_rail, to, to_rail) || RailHasAddress(to, to_rail)) {
    return RailName(to, to_rail);
  }
  return "management";  // TCP to the agent's address: not the rail's path
}

// Why rail `ar` of `a` and `br` of `b` cannot be measured as themselves,
// or "": both are RDMA rails, yet RDMA cannot run between them (a RoCE
// rail without IPv4 has no routable GID), and TCP would go over the
// management network under the rail's name.
std::string UnmeasurableRail(const AgentSession& a, int ar, const AgentSession& b, int br) {
  const auto& x = a.registration().rails();
  const auto& y = b.registration().rails();
  if (ar >= x.size() || br >= y.size()) return "";
  if (x[ar].rdma_device().empty() || y[br].rdma_device().empty()) return "";
  if (RdmaRail(a, ar, b, br) && RdmaRail(b, br, a, ar)) return "";
  std::vector<std::string> bare;
  if (x[ar].ipv4_size() == 0) bare.push_back(absl::StrCat(x[ar].name(), " on ", a.node()));
  if (y[br].ipv4_size() == 0) bare.push_back(absl::StrCat(y[br].name(), " on ", b.node()));
  return absl::StrCat(absl::StrJoin(bare, " and "),
                      " has no IPv4 address (a RoCE rail needs one for a routable GID); a TCP "
                      "transfer would cross the management network, not this rail");
}

// The rail of `b` that is `rail` of `a`: the one of the same name; by
// position only when the two nodes have as many rails (names that differ
// between two otherwise alike nodes); -1 when `b` has no such rail (a node
// missing a rail is not paired across rails by position).
int PeerRail(const AgentSession& a, int rail, const AgentSession& b) {
  const auto& ar = a.registration().rails();
  const auto& br = b.registration().rails();
  if (ar.empty() || br.empty()) return rail;  // a node without rails: TCP by design
  if (rail < ar.size()) {
    for (int i = 0; i < br.size(); ++i) {
      if (br[i].name() == ar[rail].name()) return i;
    }
  }
  return ar.size() == br.size() ? rail : -1;
}

void MeasurePair(v1::StageRun* run, AgentSession& a, AgentSession& b,
                 const v1::RunStageRequest& request, absl::Time deadline,
                 const ProgressFn& progress, const std::vector<int>& only_rails, bool latency,
                 bool path_mtu) {
  const int a_rails = a.registration().rails_size(), b_rails = b.registration().rails_size();
  // Every rail of `a` when both have rails (each paired by identity), else
  // the one TCP path between the nodes.
  const int rails = a_rails > 0 && b_rails > 0 ? a_rails : 1;
  const std::vector<std::string> plan = RailPlan(run->profile());
  std::vector<bool> b_paired(static_cast<size_t>(b_rails), false);
  for (int r = 0; r < rails; ++r) {
    if (!RailSelected(request, plan, a, b, r, rails)) continue;
    if (!only_rails.empty() &&
        std::find(only_rails.begin(), only_rails.end(), r) == only_rails.end()) {
      continue;
    }
    // Rails pair by identity (PeerRail): the peer's rail of the same name.
    const int pr = PeerRail(a, r, b);
    if (pr < 0) {
      AddFinding(run->mutable_findings(), findings::kRailNotMeasured.code, RailName(a, r),
                 absl::StrCat("rail ", RailName(a, r), " of ", a.node(), " not measured: ",
                              b.node(), " has no rail of that name (", b_rails, " rails against ",
                              a_rails, "); rails are paired by name, not across by position"));
      continue;
    }
    if (pr < b_rails) b_paired[pr] = true;
    if (std::string why = UnmeasurableRail(a, r, b, pr); !why.empty()) {
      AddFinding(run->mutable_findings(), findings::kRailNotMeasured.code, RailName(a, r),
                 absl::StrCat("rail ", RailName(a, r), " between ", a.node(), " and ", b.node(),
                              " not measured: ", why));
      continue;
    }
    const std::pair<AgentSession*, int> ends[2] = {{&a, r}, {&b, pr}};
    for (int dir = 0; dir < 2; ++dir) {
      AgentSession& from = *ends[dir].first;
      AgentSession& to = *ends[1 - dir].first;
      const int fr = ends[dir].second, tr = ends[1 - dir].second;
      // A rail without an address of its own (InfiniBand without IPoIB)
      // has no IP path: the management address's MTU is not the rail's.
      if (path_mtu && RailHasAddress(to, tr)) {
        progress(absl::StrCat("path MTU ", from.node(), " -> ", to.node(), " rail ", r));
        PathMtu(run, from, to, tr, deadline);
      }
      progress(absl::StrCat("transfer ", from.node(), " -> ", to.node(), " rail ", r));
      if (!Transfer(run, from, fr, to, tr, request, deadline).ok()) return;
      if (latency && !Transfer(run, from, fr, to, tr, request, deadline, true).ok()) return;
    }
  }
  // Rails of `b` no rail of `a` paired with (`a` is missing them), when
  // the stage ran every rail.
  if (request.rails_size() > 0 || !only_rails.empty() || a_rails == 0) return;
  for (int i = 0; i < b_rails; ++i) {
    if (b_paired[i] || !RailSelected(request, plan, b, a, i, b_rails)) continue;
    AddFinding(run->mutable_findings(), findings::kRailNotMeasured.code, RailName(b, i),
               absl::StrCat("rail ", RailName(b, i), " of ", b.node(), " not measured: ", a.node(),
                            " has no rail of that name"));
  }
}

void OnRailGpu(const AgentSession& node, int rail, v1::Task* task) {
  const auto& rails = node.registration().rails();
  if (rail >= rails.size() || rails[rail].gpu_bus_id().empty()) return;
  if (task->has_serve_transfer()) {
    task->mutable_serve_transfer()->set_gpu_bus_id(rails[rail].gpu_bus_id());
  } else if (task->has_run_transfer()) {
    task->mutable_run_transfer()->set_gpu_bus_id(rails[rail].gpu_bus_id());
  }
}

int SenderRail(const AgentSession& from, const AgentSession& to, int to_rail) {
  const int r = PeerRail(to, to_rail, from);
  return r < 0 ? to_rail : r;
}

v1::Task RailTransferTask(const v1::AcceptanceProfile& profile, const AgentSession& from,
                          int from_rail, const AgentSession& to, int to_rail, uint32_t server_port,
                          bool latency, double seconds) {
  const v1::TransferOp op = latency                                  ? v1::RR_LAT
                            : RdmaRail(from, from_rail, to, to_rail) ? v1::WRITE_BW
                                                                     : v1::STREAM_BW;
  v1::Task go = TransferTask(from, from_rail, to, to_rail, server_port, op, seconds);
  SetTrafficClass(profile, &go);
  return go;
}

v1::Task IntoRailTask(const v1::AcceptanceProfile& profile, const AgentSession& from,
                      const AgentSession& to, int to_rail, uint32_t server_port, bool latency,
                      double seconds) {
  return RailTransferTask(profile, from, SenderRail(from, to, to_rail), to, to_rail, server_port,
                          latency, seconds);
}

int RailIndex(const AgentSession& session, const std::string& rail_name) {
  const auto& rails = session.registration().rails();
  for (int i = 0; i < rails.size(); ++i) {
    if (rails[i].name() == rail_name) return i;
  }
  return 0;  // "tcp": a node without rails has the one
}

absl::Status CheckRails(const v1::RunStageRequest& request,
                        const std::vector<std::shared_ptr<AgentSession>>& nodes) {
  for (const std::string& want : request.rails()) {
    bool found = false;
    std::vector<std::string> known;
    for (const auto& n : nodes) {
      const int count = std::max(1, n->registration().rails_size());
      for (int r = 0; r < count; ++r) {
        found |= RailNamed(want, *n, r);
        known.push_back(r < n->registration().rails_size() ? n->registration().rails(r).name()
                                                           : "tcp");
      }
    }
    if (!found) {
      std::sort(known.begin(), known.end());
      known.erase(std::unique(known.begin(), known.end()), known.end());
      return absl::InvalidArgumentError(absl::StrCat(
          "--rails names '", want, "', which neither node has (rails: ", absl::StrJoin(known, ", "),
          ", or all)"));
    }
  }
  return absl::OkStatus();
}

std::string RailAddress(const AgentSession& session, int rail_index) {
  const v1::Registration& reg = session.registration();
  if (rail_index < reg.rails_size() && reg.rails(rail_index).ipv4_size() > 0) {
    return reg.rails(rail_index).ipv4(0);
  }
  return session.address();
}

std::optional<v1::LatencyStats> LatencyProbe(v1::StageRun* part, AgentSession& from,
                                             AgentSession& to, double seconds,
                                             absl::Time deadline) {
  v1::Task serve = ServeTask(to, kFirstRail);
  absl::StatusOr<v1::AgentMessage> ready = Ask(to, serve, deadline, part->profile());
  if (!ready.ok()) {
    NodeFailed(part, to.node(), ready.status(), "a latency probe's set-up");
    return std::nullopt;
  }
  v1::Task go =
      IntoRailTask(part->profile(), from, to, kFirstRail, ready->endpoint().port(), true, seconds);
  absl::StatusOr<v1::AgentMessage> result = Ask(from, go, deadline, part->profile());
  Cancel(to, serve.task_id());
  if (!result.ok()) {
    NodeFailed(part, from.node(), result.status(), "a latency probe");
    return std::nullopt;
  }
  const v1::ProbeResult& r = result->result().result();
  if (!r.has_transfer() || r.transfer().results_size() == 0) return std::nullopt;
  return r.transfer().results(0).latency();
}

}  // namespace nodeprobe::coordinator
