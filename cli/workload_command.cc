#include "cli/workload_command.h"

#include <glob.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/log_input.h"
#include "cli/output_file.h"
#include "controlplane/exit_codes.h"
#include "platform/gpu_inventory.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/workload/logged_step.h"
#include "probes/workload/placement.h"
#include "probes/workload/step_program.h"
#include "probes/workload/workload_profile.h"

namespace nodeprobe::cli {
namespace {

struct PlanOptions {
  std::string profile_path;
  int nodes = 0;
  int ranks_per_node = 0;
};

// A logged step (`from-nccl-log`): its communicators, and per rank what
// one step moves on each.
void PrintLoggedPlan(const workload::WorkloadShape& s, const workload::Placement& pl) {
  std::printf("a logged step: %d nodes x %d ranks = %d ranks, %zu communicators\n",
              pl.size() / pl.ranks_per_node, pl.ranks_per_node, pl.size(), pl.comms.size());
  for (const auto& [name, members] : pl.comms) {
    std::printf("%-6s ranks %s\n", name.c_str(), absl::StrJoin(members, ",").c_str());
  }
  std::printf("%-6s %-6s %8s %14s   (per step)\n", "rank", "comm", "ops", "bytes");
  for (int r = 0; r < pl.size(); ++r) {
    std::map<std::string, std::pair<int, uint64_t>> per;
    for (const workload::Op& op : workload::StepProgram(s, pl, r)) {
      if (op.kind == workload::OpKind::kCompute) continue;
      auto& [n, bytes] = per[workload::GroupLabel(pl, op)];
      ++n;
      bytes += op.bytes;
    }
    for (const auto& [comm, v] : per) {
      std::printf("%-6d %-6s %8d %14s\n", r, comm.c_str(), v.first, ByteSize(v.second).c_str());
    }
  }
}

void PrintPlan(const workload::WorkloadShape& s, const workload::Placement& pl) {
  if (!pl.comms.empty()) return PrintLoggedPlan(s, pl);
  std::printf("shape %s: %d nodes x %d ranks = %d ranks; tp %d, pp %d, dp %d, ep %d\n",
              s.name.c_str(), pl.size() / pl.ranks_per_node, pl.ranks_per_node, pl.size(), pl.tp,
              pl.pp, pl.dp, pl.ep);
  std::printf(
      "model: hidden %lld, %d layers, seq %lld, micro-batch %d x %d, %s, %.1fB "
      "parameters%s%s, ZeRO %d, scale %g\n",
      static_cast<long long>(s.hidden), s.layers, static_cast<long long>(s.seq), s.micro_batch,
      s.micro_batches, s.dtype.c_str(), s.params_b,
      s.experts > 0 ? absl::StrCat(", ", s.experts, " experts top ", s.top_k).c_str() : "",
      s.sequence_parallel ? ", sequence parallel" : "", s.zero, s.scale);
  for (int stage = 0; stage < pl.pp; ++stage) {
    int first = -1, last = -1;
    for (const workload::RankPlace& r : pl.ranks) {
      if (r.pp_index != stage) continue;
      if (first < 0) first = r.node;
      last = r.node;
    }
    std::printf("pipeline stage %d: nodes %d..%d\n", stage, first, last);
  }
  // Each stage's first rank: every rank of a stage runs the same program.
  std::printf("%-6s %-6s %8s %14s   (per rank and step)\n", "stage", "group", "ops", "bytes");
  for (int stage = 0; stage < pl.pp; ++stage) {
    const int rank = stage * pl.tp * pl.dp;
    const workload::StepVolume v = workload::VolumeOf(workload::StepProgram(s, pl, rank));
    for (const auto& [group, bytes] : v.bytes) {
      std::printf("%-6d %-6s %8d %14s\n", stage, workload::GroupName(group), v.ops.at(group),
                  ByteSize(bytes).c_str());
    }
    std::printf("%-6d %-6s %8s %11.1f ms\n", stage, "compute", "", v.compute_ms);
  }
}

int Plan(const PlanOptions& o) {
  Profile profile;
  if (!o.profile_path.empty()) {
    absl::StatusOr<Profile> loaded = LoadProfile(o.profile_path);
    if (!loaded.ok())
      return controlplane::ErrorExit(std::string(loaded.status().message()),
                                     controlplane::kExitUsage);
    profile = *std::move(loaded);
  }
  const workload::WorkloadShape shape = profile.Section<WorkloadRules>().Shape();
  int per_node = o.ranks_per_node;
  if (per_node == 0) per_node = shape.ranks_per_node;
  if (per_node == 0) per_node = std::max(1, platform::GpuDeviceNodes());
  absl::StatusOr<workload::Placement> pl = workload::Place(shape, o.nodes, per_node);
  if (!pl.ok())
    return controlplane::ErrorExit(std::string(pl.status().message()), controlplane::kExitUsage);
  PrintPlan(shape, *pl);
  return controlplane::kExitOk;
}

struct FromLogOptions {
  std::vector<std::string> logs;
  std::string out = "-";
  bool replace = false;
};

// A quoted pattern ("logs/nccl.*") is expanded here, as the shell would.
absl::StatusOr<std::vector<std::string>> Expand(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    if (a == "-" || a.find_first_of("*?[") == std::string::npos) {
      out.push_back(a);
      continue;
    }
    glob_t g{};
    const int rc = glob(a.c_str(), 0, nullptr, &g);
    if (rc == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) out.emplace_back(g.gl_pathv[i]);
    }
    globfree(&g);
    if (rc != 0) {
      return absl::InvalidArgumentError(absl::StrCat(a, ": no file matches this pattern"));
    }
  }
  return out;
}

int FromLog(const FromLogOptions& o) {
  absl::StatusOr<std::vector<std::string>> files = Expand(o.logs);
  if (!files.ok())
    return controlplane::ErrorExit(std::string(files.status().message()), controlplane::kExitUsage);
  if (o.out != "-") {
    if (absl::Status s = CheckOutputTarget(o.out, o.replace, "--out"); !s.ok())
      return controlplane::ErrorExit(std::string(s.message()), controlplane::kExitUsage);
  }
  workload::CollLogReader reader;
  for (const std::string& f : *files) {
    absl::Status s = ReadLogInput(f,
                                  ": NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL python train.py "
                                  "2>&1 | nodeprobe workload from-nccl-log -",
                                  [&](std::istream& in) { reader.AddStream(in); });
    if (!s.ok()) return controlplane::ErrorExit(std::string(s.message()), controlplane::kExitUsage);
  }
  std::cerr << workload::DescribeLog(reader);
  absl::StatusOr<workload::LoggedJob> job = workload::BuildLoggedJob(reader);
  if (!job.ok())
    return controlplane::ErrorExit(std::string(job.status().message()), controlplane::kExitUsage);
  for (const std::string& n : job->notes) std::cerr << "nodeprobe: note: " << n << "\n";
  int fewest = INT32_MAX;
  for (const workload::LoggedRankSummary& r : job->ranks) fewest = std::min(fewest, r.steps_seen);
  std::cerr << absl::StrFormat(
      "%d ranks on %d host(s), %d communicator(s); one step is %d ops on rank 0; %d steps seen\n",
      job->ranks.size(), job->hosts.size(), job->comms.size(), job->ranks[0].step_ops, fewest);
  const std::string yaml = workload::LoggedWorkloadYaml(*job, *files);
  if (o.out == "-") {
    std::cout << yaml;
    return controlplane::kExitOk;
  }
  if (absl::Status s = WriteOutputFile(o.out, yaml, o.replace, "--out"); !s.ok())
    return controlplane::ErrorExit(std::string(s.message()), controlplane::kExitUsage);
  std::cerr << "wrote " << o.out << ": replay it on " << job->hosts.size() << " node(s) of "
            << job->ranks_per_node
            << " rank(s): nodeprobe run --stage workload --nodes NODE,... --profile " << o.out
            << "\n";
  return controlplane::kExitOk;
}

}  // namespace

std::function<int()> AddWorkloadCommand(CLI::App& app) {
  CLI::App* cmd =
      app.add_subcommand("workload",
                         "The workload stage's job shapes: `workload plan` shows what a profile's "
                         "workload: section would run on N nodes, before anything runs.");
  cmd->require_subcommand(1);
  auto o = std::make_shared<PlanOptions>();
  CLI::App* plan = cmd->add_subcommand(
      "plan",
      "Where each pipeline stage and group lands and what one step moves per group "
      "(ops, bytes per rank, compute), from the published TP/PP/DP/EP volumes");
  plan->add_option("--profile", o->profile_path,
                   "Acceptance profile whose workload: section is the shape (none: the defaults, "
                   "data parallel only)");
  plan->add_option("--nodes", o->nodes, "Nodes the job runs on")
      ->required()
      ->check(CLI::Range(1, 100000));
  plan->add_option("--ranks-per-node", o->ranks_per_node,
                   "Ranks on each node (default: workload.ranks_per_node, else the GPUs here, "
                   "else 1)")
      ->check(CLI::Range(1, 64));
  plan->footer(
      "Exit codes: 0 the plan printed; 2 a profile or a shape that does not fit the "
      "nodes (the line names the key).");
  auto f = std::make_shared<FromLogOptions>();
  CLI::App* from = cmd->add_subcommand(
      "from-nccl-log",
      "A job's own step, read from its NCCL log (NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL, "
      "every rank's output), written as a workload: section the workload stage replays exactly: "
      "the same communicators, sizes and order");
  from->add_option("logs", f->logs,
                   "Log files (one per rank or merged; a quoted pattern is expanded; - is stdin)")
      ->required();
  from->add_option("--out", f->out, "Where the workload: section goes (default - : stdout)");
  from->add_flag("--replace", f->replace, "Replace --out when it exists");
  from->footer(
      "What was read goes to stderr (per communicator and process: ops by kind and size).\n"
      "Exit codes: 0 written; 2 a file that cannot be read, or a log the step cannot be rebuilt "
      "from (no COLL or Init lines, ranks missing, two jobs, no repeating step): the line says "
      "which and what to capture.");
  return [plan, o, from, f]() -> int {
    if (*from) return FromLog(*f);
    if (!*plan) return -1;
    return Plan(*o);
  };
}

}  // namespace nodeprobe::cli
