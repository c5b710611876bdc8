#include "coordinator/stages/workload/workload_stage.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "coordinator/nccl_ranks.h"
#include "coordinator/stages/workload/bisection.h"
#include "coordinator/stages/workload/workload_burst.h"
#include "coordinator/stages/workload/workload_findings.h"
#include "coordinator/stages/workload/workload_judge.h"
#include "coordinator/stages/workload/workload_ranks.h"
#include "coordinator/stages/workload/workload_record.h"
#include "coordinator/stages/workload/workload_timing.h"
#include "probes/framework/result_util.h"
#include "probes/transfer/transfer_profile.h"
#include "probes/workload/placement.h"
#include "probes/workload/step_program.h"
#include "probes/workload/workload_profile.h"

namespace nodeprobe::coordinator {
namespace {

// The fewest GPUs on any of the nodes, by their own nccl probes (0: a node
// without, or whose NCCL could not run).
int FewestGpus(const StageContext& c) {
  int fewest = -1;
  for (const auto& n : c.nodes) {
    const int g = GpusOf(*c.run, n->node());
    fewest = fewest < 0 ? g : std::min(fewest, g);
  }
  return std::max(0, fewest);
}

// One replay of every rank, judged; `failures` say why there is none.
struct Measurement {
  std::vector<workload::ReplayReport> reports;
  std::vector<StepTimes> steps;
  WorkloadJudgement judgement;
  std::vector<std::string> failures;
};

struct Job {
  workload::WorkloadShape shape;
  RankLibrary library;
  workload::Placement placement;
  std::vector<std::vector<workload::Op>> programs;
  std::vector<AgentSession*> rank_agents;
  std::vector<std::string> rank_nodes;
  std::vector<int> node_of;
};

Measurement MeasureOnce(const Job& job, const StageContext& c) {
  Measurement m;
  RankRun ran =
      RunWorkloadRanks(job.rank_agents, job.placement.size() / job.placement.ranks_per_node,
                       job.placement.ranks_per_node, job.library, c.run->profile(), c.deadline);
  if (!ran.failures.empty()) {
    m.failures = std::move(ran.failures);
    return m;
  }
  absl::StatusOr<std::vector<StepTimes>> steps =
      StepTimesOf(job.placement, job.programs, ran.reports);
  if (!steps.ok()) {
    m.failures.push_back(std::string(steps.status().message()));
    return m;
  }
  const TransferBars& bars = c.profile.Section<TransferBars>();
  m.judgement =
      JudgeSteps(QuietSteps(*steps, job.library.burst), c.profile.Section<WorkloadRules>(),
                 bars.noise_sigmas, bars.max_spread, job.node_of);
  m.reports = std::move(ran.reports);
  m.steps = *std::move(steps);
  return m;
}

// The job on `nodes` (indices into c.nodes), or why it cannot be placed.
absl::StatusOr<Job> PlanJob(const StageContext& c, const std::vector<int>& nodes) {
  Job job;
  job.shape = c.profile.Section<WorkloadRules>().Shape();
  if (absl::StatusOr<v1::WorkloadBurst> burst = BurstOf(c.request, c.profile); burst.ok()) {
    job.library.burst = *burst;  // checked before the run (CheckRequest)
  }
  // One rank per GPU on NCCL where every node has the GPUs for its ranks;
  // Gloo over TCP otherwise (1 rank per node unless the shape says).
  const int gpus = FewestGpus(c);
  const int per_node = job.shape.ranks_per_node > 0 ? job.shape.ranks_per_node : std::max(1, gpus);
  if (gpus > 0 && per_node <= gpus) job.library.name = "nccl";
  absl::StatusOr<workload::Placement> pl =
      workload::Place(job.shape, static_cast<int>(nodes.size()), per_node);
  if (!pl.ok()) return pl.status();
  job.placement = *std::move(pl);
  for (const workload::RankPlace& r : job.placement.ranks) {
    AgentSession* node = c.nodes[static_cast<size_t>(nodes[static_cast<size_t>(r.node)])].get();
    job.programs.push_back(workload::StepProgram(job.shape, job.placement, r.rank));
    job.rank_agents.push_back(node);
    job.rank_nodes.push_back(node->node());
    job.node_of.push_back(r.node);
    if (job.library.name == "nccl") {
      job.library.env.push_back(NcclEnvFor(node->registration(), c.profile));
    }
  }
  return job;
}

std::vector<int> AllNodes(const StageContext& c) {
  std::vector<int> all(c.nodes.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
  return all;
}

// What that node's own probes already said in this run (WARN or FAIL):
// the probable cause of its lateness, for the straggler finding.
std::vector<std::string> NodeConcerns(const v1::StageRun& run, const std::string& node) {
  std::vector<std::string> out;
  for (const v1::StageReport& rep : run.node_reports()) {
    if (rep.node() != node) continue;
    for (const v1::ProbeResult& r : rep.results()) {
      if (r.verdict() != v1::WARN && r.verdict() != v1::FAIL) continue;
      out.push_back(absl::StrCat(r.probe(), " ", VerdictName(r.verdict()),
                                 r.findings_size() > 0 ? " " + r.findings(0).code() : ""));
    }
  }
  return out;
}

// The straggler finding (added since `first`) says when a second
// measurement did not reproduce it, and what its node's probes found.
void AnnotateStraggler(v1::StageRun* run, int first, bool not_reproduced, const std::string& node) {
  const std::vector<std::string> concerns = NodeConcerns(*run, node);
  for (int i = first; i < run->findings_size(); ++i) {
    v1::Finding* f = run->mutable_findings(i);
    if (f->code() != findings::kWorkloadStraggler.code) continue;
    if (not_reproduced) {
      f->set_message(absl::StrCat(f->message(), "; not reproduced when measured again"));
    }
    f->set_message(absl::StrCat(
        f->message(), concerns.empty()
                          ? "; its node's own probes found nothing (look at its link and leaf)"
                          : absl::StrCat("; probable cause, from its node's own probes: ",
                                         absl::StrJoin(concerns, ", "))));
  }
}

// A node that led most steps by more than the bar but within the noise
// is neither named nor cleared on those steps: a second measurement's
// steps are pooled with them (the noise of a median falls with the root of
// the steps) and judged once more. Not with a burst, whose window is
// counted in steps of one measurement.
void MeasureMoreIfUndecided(const Job& job, const StageContext& c, Measurement* m,
                            uint32_t* measurements) {
  if (!m->failures.empty() || m->judgement.undecided_rank < 0 ||
      !job.library.burst.kind().empty()) {
    return;
  }
  c.progress(
      absl::StrCat("workload: ", job.rank_nodes[static_cast<size_t>(m->judgement.undecided_rank)],
                   " leads within the noise; measuring more steps"));
  Measurement more = MeasureOnce(job, c);
  if (!more.failures.empty()) return;  // what was measured first stands
  ++*measurements;
  for (size_t r = 0; r < m->reports.size(); ++r) {
    std::vector<workload::RankStep>& steps = m->reports[r].steps;
    steps.insert(steps.end(), more.reports[r].steps.begin(), more.reports[r].steps.end());
  }
  m->steps.insert(m->steps.end(), more.steps.begin(), more.steps.end());
  const TransferBars& bars = c.profile.Section<TransferBars>();
  m->judgement = JudgeSteps(m->steps, c.profile.Section<WorkloadRules>(), bars.noise_sigmas,
                            bars.max_spread, job.node_of);
}

enum class Retest { kNone, kConfirmed, kNotReproduced };

// Never FAIL on one measurement: a node named once is measured again and
// confirmed when another measurement names it too (its other rank counts:
// the same link). When the second names another node, a third decides: a
// transient (a host starved for a while) rarely lasts through two. `m`
// ends as the measurement whose figures are reported.
Retest RetestStraggler(const Job& job, const StageContext& c, Measurement* m,
                       uint32_t* measurements) {
  auto named = [&](const Measurement& x) {
    return x.failures.empty() && x.judgement.straggler
               ? job.node_of[static_cast<size_t>(x.judgement.late_rank)]
               : -1;
  };
  std::vector<Measurement> seen;
  seen.push_back(std::move(*m));
  for (int k = 0; k < 2; ++k) {
    c.progress(absl::StrCat(
        "workload: ", job.rank_nodes[static_cast<size_t>(seen.back().judgement.late_rank)],
        " stands out; measuring again"));
    Measurement again = MeasureOnce(job, c);
    ++*measurements;
    if (!again.failures.empty()) {  // what was measured first stands
      *m = std::move(seen.front());
      return Retest::kNone;
    }
    const int node = named(again);
    for (const Measurement& s : seen) {
      if (node >= 0 && named(s) == node) {
        *m = std::move(again);
        return Retest::kConfirmed;
      }
    }
    if (node < 0) break;  // named by nobody: not reproduced
    seen.push_back(std::move(again));
  }
  // No node named twice: the first measurement's WARN stands, and says so.
  *m = std::move(seen.front());
  return Retest::kNotReproduced;
}

// The fewest nodes the shape places on that divide the nodes given (a
// data-parallel replica's); 0: none but all of them.
int UnitNodes(const Job& job, int nodes) {
  for (int k = 1; k < nodes; ++k) {
    if (nodes % k == 0 && workload::Place(job.shape, k, job.placement.ranks_per_node).ok()) {
      return k;
    }
  }
  return 0;
}

// The switches the nodes' ports are cabled to, as their own cabling
// probes heard them over LLDP in this run ("" when none said).
std::string SwitchesOf(const StageContext& c, const std::vector<int>& nodes) {
  std::set<std::string> out;
  for (int n : nodes) {
    for (const v1::StageReport& rep : c.run->node_reports()) {
      if (rep.node() != c.nodes[static_cast<size_t>(n)]->node()) continue;
      for (const v1::ProbeResult& r : rep.results()) {
        for (const v1::CablingLink& l : r.cabling().links()) {
          if (!l.neighbor_system().empty()) out.insert(l.neighbor_system());
        }
      }
    }
  }
  return absl::StrJoin(out, ",");
}

std::string Names(const StageContext& c, const std::vector<int>& nodes) {
  std::vector<std::string> out;
  for (int n : nodes) out.push_back(c.nodes[static_cast<size_t>(n)]->node());
  return absl::StrJoin(out, ",");
}

// The whole job slower than workload.step_time_max_ms and no rank standing
// out: the job again on parts of the nodes (bisection.h), each run in the
// record, what they showed a finding.
void BisectSlowJob(const Job& job, const Measurement& m, const StageContext& c,
                   const WorkloadRules& rules, v1::WorkloadReport* report) {
  if (!rules.step_time_max_ms || m.judgement.straggler || !job.shape.logged.empty() ||
      !job.library.burst.kind().empty() || m.judgement.step_p50_ms <= *rules.step_time_max_ms) {
    return;
  }
  const int n = static_cast<int>(c.nodes.size());
  const int unit = UnitNodes(job, n);
  if (unit == 0) return;  // one replica: nothing to split
  std::vector<std::vector<int>> units;
  for (int u = 0; u < n / unit; ++u) {
    units.emplace_back();
    for (int k = 0; k < unit; ++k) units.back().push_back(u * unit + k);
  }
  c.progress("workload: the step is slow and no rank stands out; running it on parts of the nodes");
  const Bisection b = Bisect(
      units,
      [&](const std::vector<int>& nodes) -> std::optional<bool> {
        if (absl::Now() >= c.deadline) return std::nullopt;
        absl::StatusOr<Job> part = PlanJob(c, nodes);
        if (!part.ok()) return std::nullopt;
        const Measurement pm = MeasureOnce(*part, c);
        if (!pm.failures.empty()) return std::nullopt;
        const bool slow = pm.judgement.step_p50_ms > *rules.step_time_max_ms;
        v1::WorkloadReport::PartRun* run = report->add_bisection();
        for (int x : nodes) run->add_nodes(c.nodes[static_cast<size_t>(x)]->node());
        run->set_step_p50_ms(pm.judgement.step_p50_ms);
        run->set_slow(slow);
        c.progress(absl::StrFormat("workload on %s: step p50 %.1f ms (%s)", Names(c, nodes),
                                   pm.judgement.step_p50_ms, slow ? "slow" : "fine"));
        return slow;
      },
      2 * static_cast<int>(std::ceil(std::log2(units.size()))));
  const std::string runs = absl::StrCat(b.runs.size(), " run(s) on parts of the nodes");
  if (b.kind == Bisection::kSet) {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadSlowSubset.code, v1::FAIL,
               Names(c, b.set),
               absl::StrCat("the job is slow on ", Names(c, b.set),
                            " with any other node and fine without it (", runs,
                            "): its link, leaf port or NIC",
                            SwitchesOf(c, b.set).empty()
                                ? ""
                                : absl::StrCat(" (cabled to ", SwitchesOf(c, b.set), ")")));
  } else if (b.kind == Bisection::kBetween) {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadSlowSubset.code, v1::FAIL,
               absl::StrCat(Names(c, b.a), " | ", Names(c, b.b)),
               absl::StrCat("the job is fine on ", Names(c, b.a), " alone and on ", Names(c, b.b),
                            " alone, and slow on both together (", runs,
                            "): what joins them (a leaf's uplink, a spine link, the routing "
                            "between them)",
                            SwitchesOf(c, b.a).empty() || SwitchesOf(c, b.b).empty()
                                ? ""
                                : absl::StrCat("; their ports are on ", SwitchesOf(c, b.a),
                                               " and on ", SwitchesOf(c, b.b),
                                               " by LLDP: the path between those switches")));
  } else {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadSlowSubset.code, v1::WARN, "workload",
               absl::StrCat("the slow part was not found: ", runs,
                            ", then a run failed, the deadline came or the budget ran out"));
  }
}

v1::Verdict WorstSince(const v1::StageRun& run, int first) {
  v1::Verdict worst = v1::PASS;
  for (int i = first; i < run.findings_size(); ++i) {
    worst = WorseVerdict(worst, run.findings(i).severity());
  }
  return worst;
}

}  // namespace

absl::Status WorkloadStage::CheckRequest(const v1::RunStageRequest& request, size_t nodes,
                                         const Profile& profile) const {
  if (absl::StatusOr<v1::WorkloadBurst> burst = BurstOf(request, profile); !burst.ok()) {
    return burst.status();
  }
  const workload::WorkloadShape shape = profile.Section<WorkloadRules>().Shape();
  if (shape.ranks_per_node == 0) return absl::OkStatus();  // known once GPUs are counted
  return workload::Place(shape, static_cast<int>(nodes), shape.ranks_per_node).status();
}

void WorkloadStage::Measure(const StageContext& c) {
  const int first_finding = c.run->findings_size();
  std::vector<std::string> unusable;
  for (size_t i = 0; i < c.nodes.size(); ++i) {
    if (!c.usable[i] || !c.nodes[i]->alive()) unusable.push_back(c.nodes[i]->node());
  }
  if (!unusable.empty()) {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadNotRun.code, "workload",
               absl::StrCat("the job's shape needs every node; not usable: ",
                            absl::StrJoin(unusable, ", "), " (see its single-node report)"));
    return;
  }
  absl::StatusOr<Job> job = PlanJob(c, AllNodes(c));
  if (!job.ok()) {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadNotRun.code, "workload",
               std::string(job.status().message()));
    return;
  }
  c.progress(absl::StrCat("workload ", job->shape.name, ": ", LayoutOf(job->placement)));
  Measurement m = MeasureOnce(*job, c);
  uint32_t measurements = 1;
  MeasureMoreIfUndecided(*job, c, &m, &measurements);
  const Retest retest = m.failures.empty() && m.judgement.straggler
                            ? RetestStraggler(*job, c, &m, &measurements)
                            : Retest::kNone;
  const bool confirmed = retest == Retest::kConfirmed;
  const bool not_reproduced = retest == Retest::kNotReproduced;
  v1::WorkloadReport* report = c.run->mutable_workload();
  if (!m.failures.empty()) {
    AddFinding(c.run->mutable_findings(), findings::kWorkloadNotRun.code, "workload",
               absl::StrCat("a rank did not finish its steps: ", absl::StrJoin(m.failures, "; ")));
    report->set_shape(job->shape.name);
    report->set_layout(LayoutOf(job->placement));
    for (const std::string& n : job->rank_nodes) report->add_rank_nodes(n);
  } else {
    const WorkloadRules& rules = c.profile.Section<WorkloadRules>();
    AddWorkloadFindings(m.judgement, rules, job->rank_nodes, confirmed, c.run->mutable_findings());
    if (m.judgement.straggler) {
      AnnotateStraggler(c.run, first_finding, not_reproduced,
                        job->rank_nodes[static_cast<size_t>(m.judgement.late_rank)]);
    }
    *report = RecordOf(job->shape, job->placement, job->rank_nodes, job->programs, m.reports,
                       m.steps, m.judgement);
    report->set_measurements(measurements);
    JudgeBurst(job->library.burst, m.steps, rules.burst_slowdown_max, report,
               c.run->mutable_findings());
    BisectSlowJob(*job, m, c, rules, report);
  }
  report->set_reference(c.profile.source.empty() ? "the defaults (no profile)" : c.profile.source);
  report->set_verdict(WorstSince(*c.run, first_finding));
  c.progress(absl::StrCat("workload: ", VerdictName(report->verdict())));
}

}  // namespace nodeprobe::coordinator
