#include "coordinator/stages/workload/workload_ranks.h"

#include <openssl/rand.h>

#include "absl/strings/str_cat.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/rank_tasks.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

// After one rank fails, the others (blocked in a collective with it) are
// given this long to end by themselves before they are stopped.
constexpr absl::Duration kRankGrace = absl::Seconds(5);

workload::ReplayReport FromProto(const v1::WorkloadRankReport& p) {
  workload::ReplayReport r;
  for (const v1::WorkloadRankReport::Step& s : p.steps()) {
    r.steps.push_back({s.step_ms(), s.exposed_ms(), {s.op_ms().begin(), s.op_ms().end()}});
  }
  r.isolated_ms.assign(p.isolated_ms().begin(), p.isolated_ms().end());
  r.library = p.library();
  r.version = p.version();
  r.transport = p.transport();
  return r;
}

v1::Task WorkloadRankTask(const std::string& task_id, int nodes, int ranks_per_node, int rank,
                          const RankLibrary& library, const std::string& secret, AgentSession& node,
                          const std::string& store_host, uint32_t store_port) {
  v1::Task t;
  t.set_task_id(task_id);
  v1::RunWorkloadRank* w = t.mutable_run_workload_rank();
  w->set_nodes(static_cast<uint32_t>(nodes));
  w->set_ranks_per_node(static_cast<uint32_t>(ranks_per_node));
  w->set_rank(static_cast<uint32_t>(rank));
  w->set_secret(secret);
  w->set_bind_ip(RailAddress(node, 0));
  w->set_store_host(store_host);
  w->set_store_port(store_port);
  w->set_library(library.name);
  *w->mutable_burst() = library.burst;
  if (static_cast<size_t>(rank) < library.env.size()) {
    for (const auto& [k, v] : library.env[static_cast<size_t>(rank)]) (*w->mutable_env())[k] = v;
  }
  return t;
}

bool Finished(const v1::TaskResult& t) {
  return t.result().verdict() == v1::PASS && t.has_workload();
}

std::string WhyNot(const RankReply& reply) {
  if (!reply.result.has_value()) return reply.lost;
  const v1::ProbeResult& r = reply.result->result();
  if (r.findings_size() > 0) return r.findings(0).message();
  if (!r.reason().empty()) return r.reason();
  return absl::StrCat("ended ", VerdictName(r.verdict()), " without a report");
}

}  // namespace

RankRun RunWorkloadRanks(const std::vector<AgentSession*>& rank_nodes, int nodes,
                         int ranks_per_node, const RankLibrary& library,
                         const v1::AcceptanceProfile& profile, absl::Time deadline) {
  RankRun out;
  const int ranks = static_cast<int>(rank_nodes.size());
  std::string secret(32, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(secret.data()), 32) != 1) {
    out.failures.push_back("the coordinator could not make the run's secret (OpenSSL RAND_bytes)");
    return out;
  }
  std::vector<RankTask> tasks;
  for (int r = 0; r < ranks; ++r) tasks.push_back({rank_nodes[r], NewTaskId(), true});
  AgentSession& zero = *rank_nodes[0];
  const std::string store_host = RailAddress(zero, 0);
  auto fail = [&](int r, absl::string_view why) {
    out.failures.push_back(absl::StrCat(rank_nodes[r]->node(), " rank ", r, ": ", why));
  };
  if (absl::Status s = Send(zero,
                            WorkloadRankTask(tasks[0].task_id, nodes, ranks_per_node, 0, library,
                                             secret, zero, store_host, 0),
                            deadline, profile);
      !s.ok()) {
    fail(0, s.message());
    return out;
  }
  absl::StatusOr<v1::AgentMessage> ready = zero.AwaitFirst(tasks[0].task_id, deadline);
  if (!ready.ok() || !ready->has_endpoint() || ready->endpoint().port() == 0) {
    Cancel(zero, tasks[0].task_id);
    if (!ready.ok()) {
      fail(0, ready.status().message());
    } else if (ready->has_result()) {
      fail(0, WhyNot({ready->result(), ""}));
    } else {
      fail(0, "its rendezvous store did not answer with a port");
    }
    return out;
  }
  for (int r = 1; r < ranks; ++r) {
    if (absl::Status s =
            Send(*rank_nodes[r],
                 WorkloadRankTask(tasks[r].task_id, nodes, ranks_per_node, r, library, secret,
                                  *rank_nodes[r], store_host, ready->endpoint().port()),
                 deadline, profile);
        !s.ok()) {
      tasks[r].sent = false;
      fail(r, s.message());
    }
  }
  const std::vector<RankReply> replies = AwaitRanks(tasks, deadline, kRankGrace, Finished);
  for (int r = 0; r < ranks; ++r) {
    if (!tasks[r].sent) continue;
    if (replies[r].result.has_value() && Finished(*replies[r].result)) {
      out.reports.push_back(FromProto(replies[r].result->workload()));
    } else {
      fail(r, WhyNot(replies[r]));
    }
  }
  if (!out.failures.empty()) out.reports.clear();
  return out;
}

}  // namespace nodeprobe::coordinator
