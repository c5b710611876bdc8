#include "coordinator/stage_kernel_events.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/pair_transfers.h"
#include "platform/bounded_for.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/kernel_events/kernel_events_findings.h"

namespace nodeprobe::coordinator {

void MergeKernelEvents(v1::StageRun* run, const std::string& node, v1::ProbeResult events) {
  if (run->stage() == v1::FAILURE) {
    // The failure stage takes links down on purpose: their flaps are the
    // test, not a fault.
    auto* f = events.mutable_findings();
    const auto before = f->size();
    f->erase(std::remove_if(
                 f->begin(), f->end(),
                 [](const v1::Finding& x) { return x.code() == findings::kRdmaLinkFlapped.code; }),
             f->end());
    if (f->size() != before) {
      (*events.mutable_evidence())["kernel-events.left_out"] =
          "NIC link flaps: the failure stage takes links down on purpose";
      events.set_verdict(VerdictFromFindings(events));
    }
  }
  if (events.kernel_log().events_size() == 0 && events.findings_size() == 0) return;
  events.set_node(node);
  for (v1::StageReport& rep : *run->mutable_node_reports()) {
    if (rep.node() != node) continue;
    *rep.add_results() = std::move(events);
    FinalizeReport(&rep);
    return;
  }
  for (const v1::Finding& f : events.findings()) {
    v1::Finding* added = run->add_findings();
    *added = f;
    added->set_device(absl::StrCat(node, " ", f.device()));
  }
}

void NotAsked(v1::StageRun* run, const std::string& node, const std::string& why) {
  for (v1::StageReport& rep : *run->mutable_node_reports()) {
    if (rep.node() != node) continue;
    v1::ProbeResult* r = rep.add_results();
    r->set_probe("kernel-events");
    r->set_node(node);
    r->set_verdict(v1::SKIP);
    r->set_reason(why);
    FinalizeReport(&rep);
    return;
  }
}

void AddKernelEvents(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                     absl::Time deadline, const ProgressFn& progress) {
  // The agents' clocks may stand a little apart from ours: a margin.
  const double window = absl::ToDoubleSeconds(absl::Now() - TimeOf(run->started())) + 5;
  // A short question: a node that cannot answer it now adds nothing.
  const absl::Time by = std::min(deadline, absl::Now() + absl::Seconds(15));
  std::vector<absl::StatusOr<v1::AgentMessage>> replies(nodes.size(),
                                                        absl::UnknownError("not asked"));
  platform::BoundedFor(nodes.size(), kMaxConcurrentAsks, [&](size_t i) {
    if (!nodes[i]->alive()) return;
    v1::Task task;
    task.set_task_id(NewTaskId());
    task.mutable_kernel_events()->set_window_s(window);
    replies[i] = Ask(*nodes[i], task, by, run->profile());
  });
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (replies[i].status().code() == absl::StatusCode::kFailedPrecondition) {
      NotAsked(run, nodes[i]->node(), std::string(replies[i].status().message()));
      continue;
    }
    if (!replies[i].ok() || !replies[i]->has_result()) continue;
    const v1::ProbeResult& r = replies[i]->result().result();
    if (r.probe() != "kernel-events") continue;  // an agent that predates the question
    if (r.findings_size() > 0) {
      progress(absl::StrCat(
          nodes[i]->node(), ": kernel events during the stage: ", VerdictName(r.verdict()), " (",
          r.findings(0).code(),
          r.findings_size() > 1 ? absl::StrCat(" and ", r.findings_size() - 1, " more") : "", ")"));
    }
    MergeKernelEvents(run, nodes[i]->node(), r);
  }
}

}  // namespace nodeprobe::coordinator
