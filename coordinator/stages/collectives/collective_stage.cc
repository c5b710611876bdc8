#include "coordinator/stages/collectives/collective_stage.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "coordinator/agent_tasks.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/nccl_ranks.h"
#include "coordinator/rail_rate.h"
#include "coordinator/rank_tasks.h"
#include "coordinator/stages/collectives/collectives_findings.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/nccl/collective_judge.h"
#include "probes/nccl/collective_math.h"
#include "probes/nccl/hardware_bound.h"
#include "probes/nccl/nccl_profile.h"
#include "probes/transfer/counter_deltas.h"

namespace nodeprobe::coordinator {
namespace {

struct Slot {
  AgentSession* node;
  int gpu;
  std::string task_id;
};

}  // namespace

namespace {

// Rank r's task: the options, the unique id, and the node's NCCL rails.
v1::Task CollectiveTask(const std::vector<Slot>& slots, int rank, const std::string& id,
                        const Profile& profile) {
  v1::Task t;
  t.set_task_id(slots[rank].task_id);
  v1::RunCollective* c = t.mutable_run_collective();
  *c->mutable_options() = nccl::WithDefaults(profile.Section<NcclRules>().run);
  c->set_nranks(static_cast<uint32_t>(slots.size()));
  c->set_rank(static_cast<uint32_t>(rank));
  c->set_gpu(static_cast<uint32_t>(slots[rank].gpu));
  c->set_unique_id(id);
  for (const auto& [k, v] : NcclEnvFor(slots[rank].node->registration(), profile)) {
    (*c->mutable_env())[k] = v;
  }
  return t;
}

// The ranks' answers judged as one collective run against what the
// nodes' GPUs and rails can carry; added to the run.
void JudgeAcrossNodes(v1::StageRun* run, const std::vector<std::shared_ptr<AgentSession>>& nodes,
                      const std::vector<nccl::RankAnswer>& answers, const Profile& profile,
                      const std::string& rank_order, const ProgressFn& progress) {
  nccl::NcclLogContext ctx;
  ctx.busbw_min_gbps = profile.Section<NcclRules>().busbw_min_gbps;
  ctx.profile_source = profile.source;
  ctx.rdma_expected = true;
  std::vector<nccl::NodeRails> rails;
  for (const auto& n : nodes) {
    bool rdma = false;
    for (const v1::Rail& rail : n->registration().rails()) rdma |= !rail.rdma_device().empty();
    ctx.rdma_expected &= rdma;
    // The rails NCCL is given (NCCL_IB_HCA): the RDMA ones where there are,
    // each at the goodput the transfer bar uses.
    nccl::NodeRails& mine = rails.emplace_back(nccl::NodeRails{n->node(), {}, ""});
    double least = 0;
    for (const v1::Rail& rail : n->registration().rails()) {
      if (rdma && rail.rdma_device().empty()) continue;
      std::string basis;
      const double gbits = RailGoodputGbps(rail, &basis);
      mine.rate_gbits.push_back(gbits);
      if (mine.rate_basis.empty() || gbits < least) {
        least = gbits;
        mine.rate_basis = basis;
      }
    }
  }
  ctx.run_shape = nccl::ShapeOfRun(answers, nodes.size());
  ctx.run_shape.rails = nccl::RailBound(rails);
  ctx.hardware_min_fraction = profile.Section<NcclRules>().hardware_min_fraction;
  v1::ProbeResult result = nccl::JudgeCollectiveRun(answers, ctx, rank_order);
  if (result.has_collective()) {
    transfer::JudgeCollectiveCounters(result.collective(), profile, &result);
  }
  FinalizeResult(profile, &result);
  progress(absl::StrCat("nccl across nodes: ", VerdictName(result.verdict())));
  *run->add_collectives() = std::move(result);
}

// Rank 0 first: its answer is the unique id ("" when it made none; its
// failure is then in answers[0]).
std::string StartRankZero(const v1::StageRun& run, const std::vector<Slot>& slots,
                          const Profile& profile, absl::Time deadline,
                          std::vector<nccl::RankAnswer>* answers) {
  if (absl::Status s =
          Send(*slots[0].node, CollectiveTask(slots, 0, "", profile), deadline, run.profile());
      !s.ok()) {
    (*answers)[0].lost = std::string(s.message());
    return "";
  }
  absl::StatusOr<v1::AgentMessage> first = slots[0].node->AwaitFirst(slots[0].task_id, deadline);
  if (!first.ok()) {
    (*answers)[0].lost = std::string(first.status().message());
  } else if (first->has_endpoint()) {
    return first->endpoint().nccl_unique_id();
  } else if (first->has_result()) {
    (*answers)[0].result = first->result().result();
  }
  return "";
}

// Every sent rank's answer (rank_tasks.h: after the first failure the
// others get nccl::kRankGrace, then are stopped).
void AwaitCollectiveRanks(const std::vector<Slot>& slots, const std::vector<bool>& sent,
                          absl::Time deadline, std::vector<nccl::RankAnswer>* answers) {
  std::vector<RankTask> tasks;
  for (size_t r = 0; r < slots.size(); ++r)
    tasks.push_back({slots[r].node, slots[r].task_id, sent[r]});
  const std::vector<RankReply> replies =
      AwaitRanks(tasks, deadline, nccl::kRankGrace,
                 [](const v1::TaskResult& t) { return nccl::RankFinished(t.result()); });
  for (size_t r = 0; r < slots.size(); ++r) {
    if (!sent[r]) continue;  // its Send's error is already its answer
    if (replies[r].result.has_value()) {
      (*answers)[r].result = replies[r].result->result();
    } else {
      (*answers)[r].lost = replies[r].lost;
    }
  }
}

}  // namespace

void RunCollectivesOnAgents(v1::StageRun* run,
                            const std::vector<std::shared_ptr<AgentSession>>& nodes,
                            const Profile& profile, absl::Time deadline,
                            const ProgressFn& progress) {
  std::vector<Slot> slots;
  std::vector<std::string> without, order;
  for (const auto& n : nodes) {
    const int gpus = GpusOf(*run, n->node());
    if (gpus == 0) without.push_back(n->node());
    if (gpus > 0) {
      order.push_back(absl::StrCat(n->node(), " ranks ", slots.size(), "-",
                                   slots.size() + static_cast<size_t>(gpus) - 1));
    }
    for (int g = 0; g < gpus; ++g) slots.push_back({n.get(), g, NewTaskId()});
  }
  if (slots.empty()) return;  // no GPUs anywhere: nothing to run, nothing to say
  if (!without.empty()) {
    AddFinding(run->mutable_findings(), findings::kNcclNotRun.code, "",
               absl::StrCat("no collective across the nodes: ", absl::StrJoin(without, ", "),
                            " ran no local NCCL (see its nccl probe)"));
    return;
  }
  const std::string rank_order =
      absl::StrCat("node order x local CUDA ordinal: ", absl::StrJoin(order, "; "));
  progress(absl::StrCat("nccl: ", slots.size(), " ranks on ", nodes.size(), " nodes"));
  const int nranks = static_cast<int>(slots.size());
  std::vector<nccl::RankAnswer> answers(slots.size());
  for (int r = 0; r < nranks; ++r) {
    answers[r].rank = static_cast<uint32_t>(r);
    answers[r].node = slots[r].node->node();
    answers[r].gpu = slots[r].gpu;
  }
  const std::string id = StartRankZero(*run, slots, profile, deadline, &answers);
  if (id.empty()) {
    Cancel(*slots[0].node, slots[0].task_id);
    for (int r = 1; r < nranks; ++r) answers[r].lost = "not started: rank 0 made no unique id";
    JudgeAcrossNodes(run, nodes, answers, profile, rank_order, progress);
    return;
  }
  std::vector<bool> sent(slots.size(), true);
  for (int r = 1; r < nranks; ++r) {
    if (absl::Status s =
            Send(*slots[r].node, CollectiveTask(slots, r, id, profile), deadline, run->profile());
        !s.ok()) {
      answers[r].lost = std::string(s.message());
      sent[r] = false;
    }
  }
  AwaitCollectiveRanks(slots, sent, deadline, &answers);
  JudgeAcrossNodes(run, nodes, answers, profile, rank_order, progress);
}

void CollectivesStage::Measure(const StageContext& c) {
  std::vector<std::shared_ptr<AgentSession>> live;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    if (c.usable[i] && c.nodes[i]->alive()) live.push_back(c.nodes[i]);
  }
  if (live.size() == c.nodes.size() || (c.request.stage() == v1::CLUSTER && live.size() >= 2)) {
    RunCollectivesOnAgents(c.run, live, c.profile, c.deadline, c.progress);
  }
}

}  // namespace nodeprobe::coordinator
