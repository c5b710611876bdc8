#include "coordinator/stages/failure/failure_stage.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/stages/failure/failure_findings.h"
#include "coordinator/stages/failure/failure_profile.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

std::string When(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

// A finding about R's node and rail.
void Add(v1::FailureResult* r, std::string_view code, std::string message) {
  AddFinding(r->mutable_findings(), code, absl::StrCat(r->node(), ":", r->rail()),
             std::move(message));
}

// One short transfer from -> to; true when it moved data without error.
bool GoodTransfer(AgentSession& from, AgentSession& to, const v1::AcceptanceProfile& profile,
                  absl::Time deadline) {
  v1::Task serve = ServeTask(to, kFirstRail);
  absl::StatusOr<v1::AgentMessage> ready = Ask(to, serve, deadline, profile);
  if (!ready.ok() || !ready->has_endpoint()) return false;
  v1::Task go = IntoRailTask(profile, from, to, kFirstRail, ready->endpoint().port(), false, 1);
  absl::StatusOr<v1::AgentMessage> result = Ask(from, go, deadline, profile);
  Cancel(to, serve.task_id());
  if (!result.ok()) return false;
  v1::PairResult p;
  *p.mutable_result() = result->result().result();
  std::string kind;
  double g = 0;
  return p.result().verdict() != v1::ERROR && BandwidthFigure(p, &kind, &g) && g > 0;
}

// Short transfers from -> to until one is good (true) or `give_up`, or
// either end is gone.
bool TrafficFlowsBy(AgentSession& from, AgentSession& to, const v1::AcceptanceProfile& profile,
                    absl::Time give_up) {
  while (absl::Now() < give_up && from.alive() && to.alive()) {
    if (GoodTransfer(from, to, profile, give_up)) return true;
    absl::SleepFor(absl::Milliseconds(200));
  }
  return false;
}

// A scenario's record, `node` being where the failure is made; `act`
// notes an action with its time and says it as progress.
struct Scenario {
  v1::FailureResult* r;
  ProgressFn progress;
  void act(const std::string& what) const {
    r->add_actions(absl::StrCat(When(absl::Now()), " ", what));
    progress(what);
  }
  void finish() const {
    v1::Verdict v = v1::PASS;
    for (const v1::Finding& f : r->findings()) v = WorseVerdict(v, f.severity());
    r->set_verdict(v);
  }
};

Scenario Begin(v1::StageRun* run, const std::string& name, AgentSession& node, AgentSession& peer,
               const ProgressFn& progress) {
  v1::FailureResult* r = run->add_failures();
  r->set_scenario(name);
  r->set_node(node.node());
  r->set_peer(peer.node());
  r->set_rail(node.registration().rails_size() > kFirstRail
                  ? node.registration().rails(kFirstRail).name()
                  : "tcp");
  r->set_operator_identity(run->operator_identity());
  r->set_rails(std::max(1, node.registration().rails_size()));
  return Scenario{r, progress};
}

// The transfer the failure hits: `to` serves, `from` sends for `seconds`.
// False (the run told, the scenario ERROR) when it could not start.
bool StartHitTransfer(v1::StageRun* run, const Scenario& sc, AgentSession& from, AgentSession& to,
                      double seconds, absl::Time deadline, v1::Task* serve, v1::Task* go) {
  const v1::AcceptanceProfile& ap = run->profile();
  *serve = ServeTask(to, kFirstRail);
  absl::StatusOr<v1::AgentMessage> ready = Ask(to, *serve, deadline, ap);
  if (!ready.ok()) {
    NodeFailed(run, to.node(), ready.status(), "failure set-up");
    sc.r->set_verdict(v1::ERROR);
    return false;
  }
  *go = IntoRailTask(ap, from, to, kFirstRail, ready->endpoint().port(), false, seconds);
  if (absl::Status s = Send(from, *go, deadline, ap); !s.ok()) {
    NodeFailed(run, from.node(), s, "the failure stage's transfer");
    Cancel(to, serve->task_id());
    sc.r->set_verdict(v1::ERROR);
    return false;
  }
  sc.act(absl::StrFormat("transfer %s -> %s [%s] started for %.0f s", from.node(), to.node(),
                         sc.r->rail(), seconds));
  return true;
}

// What the hit transfer made of the failure: resumed (`ok_word`) or errored
// cleanly, into the record; FAILURE_HUNG when it never ended.
void RecordHitTransfer(const Scenario& sc, const std::string& from, const std::string& to,
                       const absl::StatusOr<v1::AgentMessage>& result, const char* ok_word,
                       const std::string& seconds_note) {
  v1::FailureResult* r = sc.r;
  if (!result.ok()) {
    r->set_transfer_outcome("hung");
    Add(r, findings::kFailureHung.code,
        absl::StrCat("the transfer ", from, " -> ", to,
                     " neither finished nor failed by its deadline: ", result.status().message()));
    return;
  }
  v1::PairResult* p = r->mutable_transfer();
  p->set_from_node(from);
  p->set_to_node(to);
  p->set_rail(r->rail());
  *p->mutable_result() = result->result().result();
  std::string kind;
  double g = 0;
  const bool moved = BandwidthFigure(*p, &kind, &g);
  std::string code;
  for (const v1::Finding& f : p->result().findings()) {
    if (f.severity() == v1::ERROR || f.severity() == v1::FAIL) {
      code = f.code();
      break;
    }
  }
  if (p->result().verdict() == v1::ERROR || !moved) {
    r->set_transfer_outcome(absl::StrCat("errored cleanly: ", code.empty() ? "no data" : code));
  } else {
    r->set_transfer_outcome(absl::StrFormat("%s: %.2f Gb/s%s", ok_word, g, seconds_note));
  }
  sc.act(absl::StrCat("transfer ended: ", r->transfer_outcome()));
}

// Scenario link-down: A's link toward B down mid-transfer, then back.
void LinkDown(v1::StageRun* run, AgentSession& a, AgentSession& b, const Profile& profile,
              absl::Time deadline, const ProgressFn& progress) {
  const v1::AcceptanceProfile& ap = run->profile();
  const double down = profile.Section<FailureRules>().link_down_s;
  const Scenario sc = Begin(run, "link-down", a, b, progress);
  v1::FailureResult* r = sc.r;

  // The transfer the failure will hit: long enough to see the link come back.
  const double seconds = down + 6;
  v1::Task serve, go;
  if (!StartHitTransfer(run, sc, a, b, seconds, deadline, &serve, &go)) return;
  absl::SleepFor(absl::Seconds(2));

  v1::Task flap;
  flap.set_task_id(NewTaskId());
  flap.mutable_flap_link()->set_peer_host(RailAddress(b, kFirstRail));
  if (a.registration().rails_size() > kFirstRail) {
    flap.mutable_flap_link()->set_netdev(a.registration().rails(kFirstRail).netdev());
  }
  flap.mutable_flap_link()->set_down_seconds(down);
  sc.act(absl::StrFormat("%s asked to take its link toward %s down for %.1f s (operator: %s)",
                         a.node(), RailAddress(b, kFirstRail), down, r->operator_identity()));
  absl::StatusOr<v1::AgentMessage> flapped = Ask(a, flap, deadline, ap);
  absl::Time up_at = absl::Now();
  if (!flapped.ok()) {
    NodeFailed(run, a.node(), flapped.status(), "the link flap");
  } else {
    *r->mutable_flap() = flapped->result().result();
    const v1::LinkFlapReport& lf = r->flap().link_flap();
    if (lf.has_down_at()) {
      sc.act(
          absl::StrCat(a.node(), ": ", lf.netdev(), " seen down at ", When(TimeOf(lf.down_at()))));
      r->set_detect_s(absl::ToDoubleSeconds(TimeOf(lf.down_at()) - TimeOf(lf.asked_at())));
    }
    if (lf.has_up_at()) {
      up_at = TimeOf(lf.up_at());
      sc.act(absl::StrCat(a.node(), ": ", lf.netdev(), " seen up again at ", When(up_at),
                          " (by the ", lf.restored_by(), ")"));
    }
    for (const v1::Finding& f : r->flap().findings()) *r->add_findings() = f;
    if (!lf.restored() && r->flap().verdict() != v1::ERROR) {
      Add(r, findings::kFailureNotRestored.code,
          absl::StrCat(a.node(), "'s ", lf.netdev(), " is still down after the test"));
    }
  }

  // Recovery: short transfers from the moment the link is back (beside
  // what is left of the hit transfer) until one is good.
  const absl::Time give_up =
      std::min(deadline, up_at + absl::Seconds(profile.Section<FailureRules>().max_recover_s));
  if (TrafficFlowsBy(a, b, ap, give_up)) {
    r->set_recover_s(std::max(0.0, absl::ToDoubleSeconds(absl::Now() - up_at)));
    sc.act(absl::StrFormat("traffic flows again %.2f s after the link came back", r->recover_s()));
  } else if (a.alive() && b.alive()) {
    Add(r, findings::kFailureNotRecovered.code,
        absl::StrFormat("no good transfer %s -> %s within %.0f s of the link coming back", a.node(),
                        b.node(), profile.Section<FailureRules>().max_recover_s));
  }
  // What the transfer made of it.
  absl::StatusOr<v1::AgentMessage> result =
      a.Await(go.task_id(), std::min(deadline, absl::Now() + absl::Seconds(seconds + 30)));
  Cancel(b, serve.task_id());
  RecordHitTransfer(sc, a.node(), b.node(), result, "resumed",
                    absl::StrFormat(" over the whole %.0f s", seconds));
  if (r->rails() <= 1) {
    sc.act(absl::StrCat(a.node(), " has one rail: there was no other for traffic to move to"));
  }
  sc.finish();
}

// Scenario agent-restart: two seconds into a transfer A -> B, B's agent
// restarts (RestartAgent: in place, what it ran dies with it). Recorded:
// when the coordinator lost B's stream, what A's transfer made of losing
// its server (it must end by itself, cleanly), and when B registered again
// and a transfer through the new agent worked.
void AgentRestart(v1::StageRun* run, AgentSession& a, AgentSession& b, const AgentFinder& find,
                  const Profile& profile, absl::Time deadline, const ProgressFn& progress) {
  const v1::AcceptanceProfile& ap = run->profile();
  const Scenario sc = Begin(run, "agent-restart", b, a, progress);
  v1::FailureResult* r = sc.r;

  const double seconds = 8;
  v1::Task serve, go;
  if (!StartHitTransfer(run, sc, a, b, seconds, deadline, &serve, &go)) return;
  absl::SleepFor(absl::Seconds(2));

  v1::Task restart;
  restart.set_task_id(NewTaskId());
  restart.mutable_restart_agent();
  const absl::Time asked = absl::Now();
  sc.act(
      absl::StrCat(b.node(), "'s agent asked to restart (operator: ", r->operator_identity(), ")"));
  absl::StatusOr<v1::AgentMessage> answer = Ask(b, restart, deadline, ap);
  if (!answer.ok() || answer->result().result().verdict() == v1::ERROR) {
    const std::string why =
        answer.ok() ? answer->result().result().reason() : std::string(answer.status().message());
    Add(r, findings::kFailureRefused.code,
        absl::StrCat(b.node(), "'s agent did not restart: ", why));
    Cancel(b, serve.task_id());
    (void)a.Await(go.task_id(), std::min(deadline, absl::Now() + absl::Seconds(seconds + 10)));
    sc.finish();
    return;
  }
  // The stream goes when the old process does.
  while (b.alive() && absl::Now() < std::min(deadline, asked + absl::Seconds(30))) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  if (b.alive()) {
    Add(r, findings::kFailureNotRestored.code,
        absl::StrCat(b.node(), "'s agent answered but its stream stayed up for 30 s"));
    sc.finish();
    return;
  }
  const absl::Time lost = absl::Now();
  r->set_detect_s(absl::ToDoubleSeconds(lost - asked));
  sc.act(absl::StrFormat("%s's stream lost %.2f s after the ask", b.node(), r->detect_s()));

  // What A's transfer made of its server dying.
  absl::StatusOr<v1::AgentMessage> result =
      a.Await(go.task_id(), std::min(deadline, absl::Now() + absl::Seconds(seconds + 30)));
  RecordHitTransfer(sc, a.node(), b.node(), result, "completed", "");

  // Back: registered again, and a transfer through the new agent.
  const absl::Time give_up =
      std::min(deadline, lost + absl::Seconds(profile.Section<FailureRules>().max_recover_s));
  std::shared_ptr<AgentSession> again;
  while (absl::Now() < give_up) {
    again = find ? find(b.node()) : nullptr;
    if (again && again.get() != &b && again->alive()) break;
    again = nullptr;
    absl::SleepFor(absl::Milliseconds(50));
  }
  if (again) {
    sc.act(absl::StrFormat("%s registered again %.2f s after its stream was lost", b.node(),
                           absl::ToDoubleSeconds(absl::Now() - lost)));
  }
  if (again && TrafficFlowsBy(a, *again, ap, give_up)) {
    r->set_recover_s(absl::ToDoubleSeconds(absl::Now() - lost));
    sc.act(absl::StrFormat("traffic flows through the new agent %.2f s after the old one went",
                           r->recover_s()));
  } else {
    Add(r, findings::kFailureNotRecovered.code,
        absl::StrFormat(
            "%s's agent %s within %.0f s of its restart", b.node(),
            again ? "registered again but no transfer through it worked" : "did not register again",
            profile.Section<FailureRules>().max_recover_s));
  }
  sc.finish();
}

}  // namespace

void RunFailure(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                const std::vector<bool>& usable, const v1::RunStageRequest& request,
                const Profile& profile, absl::Time deadline, const ProgressFn& progress,
                const AgentFinder& find) {
  if (nodes.size() < 2 || !usable[0] || !usable[1]) {
    AddFinding(run->mutable_findings(), findings::kNothingMeasured.code, v1::ERROR, "failure",
               "the failure stage needs its first two nodes to have answered their probes");
    return;
  }
  std::vector<std::string> scenarios(request.scenarios().begin(), request.scenarios().end());
  if (scenarios.empty()) scenarios.push_back("link-down");
  for (const std::string& scenario : scenarios) {
    if (scenario == "link-down") {
      LinkDown(run, *nodes[0], *nodes[1], profile, deadline, progress);
    } else if (scenario == "agent-restart") {
      AgentRestart(run, *nodes[0], *nodes[1], find, profile, deadline, progress);
    } else {
      AddFinding(run->mutable_findings(), findings::kFailureRefused.code, "failure",
                 absl::StrCat("unknown failure scenario '", scenario, "'"));
    }
  }
}

absl::Status FailureStage::CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                                        const Profile&) const {
  if (!request.allow_disruptive()) {
    return absl::FailedPreconditionError(
        "the failure stage takes links down: it runs only with --allow-disruptive (and agents "
        "started with --allow-disruptive)");
  }
  if (nodes == 2) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("the failure stage needs exactly 2 nodes, got ", nodes));
}

void FailureStage::Measure(const StageContext& c) {
  RunFailure(c.run, c.nodes, c.usable, c.request, c.profile, c.deadline, c.progress, c.find);
}

}  // namespace nodeprobe::coordinator
