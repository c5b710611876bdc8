#include "coordinator/stage_orchestrator.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/baseline/baseline_judge.h"
#include "coordinator/collective_peers.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/peer_judgement.h"
#include "coordinator/record_check.h"
#include "coordinator/stage_kernel_events.h"
#include "platform/bounded_for.h"
#include "probes/framework/coverage.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

// What the node's busy-node guard said it is busy with ("" when idle or
// forced): the message of its first NODE_BUSY finding.
std::string BusyWith(const v1::StageReport& report) {
  for (const v1::ProbeResult& r : report.results()) {
    for (const v1::Finding& f : r.findings()) {
      if (f.code() == findings::kNodeBusy.code) return f.message();
    }
  }
  return "";
}

}  // namespace

absl::Status CheckRequestAgainstStages(const v1::RunStageRequest& request, size_t nodes,
                                       const Profile& profile) {
  for (const auto& stage : BuiltinStages().All()) {
    if (!stage->Applies(request)) continue;
    if (absl::Status s = stage->CheckRequest(request, nodes, profile); !s.ok()) return s;
  }
  return absl::OkStatus();
}

namespace {

// 1. The single-node probes everywhere, concurrently (a bounded number of
// waits at once: a fleet's nodes share kMaxConcurrentAsks threads). Which
// nodes answered and are not busy: only those take part in what follows.
std::vector<bool> RunSingleNodeEverywhere(v1::StageRun* run,
                                          const std::vector<std::shared_ptr<AgentSession>>& nodes,
                                          const v1::RunStageRequest& request, absl::Time deadline,
                                          const ProgressFn& progress) {
  progress(absl::StrCat("single-node probes on ", nodes.size(), " nodes"));
  std::vector<absl::StatusOr<v1::AgentMessage>> replies(nodes.size(),
                                                        absl::UnknownError("not run"));
  platform::BoundedFor(nodes.size(), kMaxConcurrentAsks, [&](size_t i) {
    v1::Task task;
    task.set_task_id(NewTaskId());
    task.mutable_run_probes()->set_stage(v1::SINGLE_NODE);
    task.mutable_run_probes()->set_force(request.force());
    // The storm measures storage itself: alone, then all nodes at once.
    if (request.storage_storm()) task.mutable_run_probes()->add_except_probes("storage");
    replies[i] = Ask(*nodes[i], task, deadline, run->profile());
  });
  std::vector<bool> usable(nodes.size(), false);
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!replies[i].ok()) {
      NodeFailed(run, nodes[i]->node(), replies[i].status(), "the single-node probes");
      continue;
    }
    usable[i] = true;
    *run->add_node_reports() = replies[i]->result().report();
    // The node's own busy-node guard held its intrusive probes back: no
    // transfers or collectives with it either.
    if (const std::string busy = BusyWith(replies[i]->result().report()); !busy.empty()) {
      usable[i] = false;
      AddFinding(run->mutable_findings(), findings::kNodeBusy.code, v1::WARN, nodes[i]->node(),
                 absl::StrCat(nodes[i]->node(),
                              " is busy, so nothing between it and the other nodes was "
                              "measured: ",
                              busy));
    }
    progress(absl::StrCat(nodes[i]->node(), ": single-node ",
                          VerdictName(replies[i]->result().report().verdict())));
  }
  return usable;
}

// The run's figures judged against each other (the profile or hardware
// bars were applied on the nodes).
void JudgeAgainstPeers(v1::StageRun* run, const v1::RunStageRequest& request,
                       const Profile& profile) {
  JudgeTransfersAgainstPeers(profile, run);
  JudgeCollectivesAgainstPeers(profile, run);
  for (const auto& stage : BuiltinStages().All()) {
    if (stage->Applies(request)) stage->Judge(request, profile, run);
  }
}

// 4. The verdict: worst of everything, SKIP not counting; coverage and
// the run's state.
void EndRun(v1::StageRun* run) {
  run->set_verdict(RunVerdict(*run));
  *run->mutable_coverage() = CoverageOf(*run);
  // "error": the run itself did not go as planned (a node lost, a deadline
  // passed); findings that judge the fabric (a suspect) leave it "done".
  bool broken = false;
  for (const auto& f : run->findings()) broken |= f.severity() == v1::ERROR;
  run->set_state(broken ? "error" : "done");
  *run->mutable_finished() = StampOf(absl::Now());
}

}  // namespace

v1::StageRun RunStageOnAgents(v1::StageRun run,
                              const std::vector<std::shared_ptr<AgentSession>>& nodes,
                              const v1::RunStageRequest& request, const Profile& profile,
                              absl::Time deadline, const ProgressFn& progress,
                              const CheckpointFn& checkpoint, const AgentFinder& find,
                              const HistoryFn& history) {
  const std::vector<bool> usable =
      RunSingleNodeEverywhere(&run, nodes, request, deadline, progress);
  const StageContext ctx{&run,     nodes,    usable,     request, profile,
                         deadline, progress, checkpoint, find};
  for (const auto& stage : BuiltinStages().All()) {
    if (stage->Applies(request)) stage->Measure(ctx);
  }
  JudgeAgainstPeers(&run, request, profile);
  if (const BaselineRules& b = profile.Section<BaselineRules>(); b.use && history) {
    const baseline::History& h = history();
    baseline::JudgeAgainstBaselines(&run, h.runs, b, h.marks);
  }
  // What the nodes' kernels logged meanwhile: an Xid during the stage makes
  // it not PASS, whatever was measured.
  AddKernelEvents(&run, nodes, deadline, progress);
  EndRun(&run);
  return run;
}

}  // namespace nodeprobe::coordinator
