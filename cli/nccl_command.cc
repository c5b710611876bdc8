#include "cli/nccl_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "absl//strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "cli/json_output.h"
#include "cli/run_command.h"
#include "cli/safe_text.h"
#include "cli/table_renderer.h"
#include "controlplane/command_line.h"
#include "controlplane/environment.h"
#include "controlplane/exit_codes.h"
#include "probes/nccl/collective_math.h"
#include "tasks/task_launcher.h"

namespace nodeprobe::cli {
namespace {

struct NcclOptions {
  std::vector<std::string> collectives;
  std::string min_bytes, max_bytes, sizes;
  uint32_t step_factor = 0;
  uint32_t iters = 0;
  uint32_t warmup_iters = 0;
  int check = 1;
  double op_timeout_s = 0;
  double timeout_s = 1800;
  std::string profile_path;
  std::string format = "table";
  std::string node_name;
  bool force = false;
};

// "1M", "64K", "8G", "4096": nccl-tests' size suffixes (powers of 1024).
bool ParseBytes(std::string_view s, uint64_t* out) {
  uint64_t scale = 1;
  if (!s.empty()) {
    switch (s.back()) {
      case 'K': case 'k': scale = 1ull << 10; break;
      case 'M': case 'm': scale = 1ull << 20; break;
      case 'G': case 'g': scale = 1ull << 30; break;
      default: break;
    }
    if (scale != 1) s.remove_suffix(1);
  }
  uint64_t n = 0;
  if (!absl::SimpleAtoi(absl::string_view(s.data(), s.size()), &n) || n == 0) return false;
  *out = n * scale;
  return true;
}

std::string RenderNccl(const v1::ProbeResult& r) {
  std::string out;
  if (r.verdict() == v1::SKIP) return absl::StrCat("nccl SKIP: ", r.reason(), "\n");
  const v1::CollectiveReport& c = r.collective();
  absl::StrAppend(&out, "# NCCL ", c.nccl_version(), ", ", c.nranks(), " ranks (",
                  c.rank_order(), ")\n");
  absl::StrAppend(&out, absl::StrFormat("# %-14s %12s %12s %6s %6s %5s %10s %8s %8s %7s %10s "
                                        "%8s %8s %7s\n",
                                        "collective", "size", "count", "type", "redop", "root",
                                        "time(us)", "algbw", "busbw", "#wrong", "ip time",
                                        "algbw", "busbw", "#wrong"));
  auto wrong = [](int64_t w) { return w < 0 ? std::string("N/A") : absl::StrCat(w); };
  for (const v1::CollectiveRow& row : c.rows()) {
    absl::StrAppend(
        &out, absl::StrFormat("  %-14s %12llu %12llu %6s %6s %5d %10.1f %8.2f %8.2f %7s %10.1f "
                              "%8.2f %8.2f %7s\n",
                              row.collective(), static_cast<unsigned long long>(row.size()),
                              static_cast<unsigned long long>(row.count()), row.type(),
                              row.redop().empty() ? "none" : row.redop(), row.root(),
                              row.time_us(), row.algbw_gbps(), row.busbw_gbps(),
                              wrong(row.wrong()), row.in_place_time_us(),
                              row.in_place_algbw_gbps(), row.in_place_busbw_gbps(),
                              wrong(row.in_place_wrong())));
  }
  for (const v1::CollectiveRank& rank : c.ranks()) {
    if (rank.state() != "done") {
      absl::StrAppend(&out, "  rank ", rank.rank(), " (GPU ", rank.gpu(), "): ", rank.state(),
                      rank.error().empty() ? "" : ": " + rank.error(), "\n");
    }
  }
  return TerminalSafe(out + RenderVerdictAndFindings(r));
}

int RunNccl(const NcclOptions& o) {
  v1::Task task;
  task.set_task_id("cli-nccl");
  if (!o.profile_path.empty()) {
    absl::StatusOr<v1::AcceptanceProfile> profile = ReadAcceptanceProfile(o.profile_path);
    if (!profile.ok()) return controlplane::StatusExit(profile.status());
    *task.mutable_profile() = *std::move(profile);
  }
  v1::RunProbes* rp = task.mutable_run_probes();
  rp->set_stage(v1::SINGLE_NODE);
  rp->add_probes("nccl");
  rp->set_node_name(o.node_name.empty() ? controlplane::HostName() : o.node_name);
  rp->set_force(o.force);
  v1::CollectiveOptions* opts = rp->mutable_nccl_options();
  for (const std::string& c : o.collectives) opts->add_collectives(c);
  uint64_t n = 0;
  if (!o.min_bytes.empty()) {
    if (!ParseBytes(o.min_bytes, &n))
      return controlplane::ErrorExit("--min-bytes: a size like 8, 64K, 1M or 1G");
    opts->set_min_bytes(n);
  }
  if (!o.max_bytes.empty()) {
    if (!ParseBytes(o.max_bytes, &n))
      return controlplane::ErrorExit("--max-bytes: a size like 8, 64K, 1M or 1G");
    opts->set_max_bytes(n);
  }
  if (opts->min_bytes() > 0 && opts->max_bytes() == 0) opts->set_max_bytes(opts->min_bytes());
  if (opts->max_bytes() > 0 && opts->min_bytes() == 0) opts->set_min_bytes(opts->max_bytes());
  if (!o.sizes.empty()) {
    for (absl::string_view s : absl::StrSplit(o.sizes, ',')) {
      if (!ParseBytes(std::string_view(s.data(), s.size()), &n)) {
        return controlplane::ErrorExit(
            absl::StrCat("--sizes: '", std::string(s), "' is not a size (8, 64K, 1M, 1G)"));
      }
      opts->add_sizes(n);
    }
  }
  opts->set_step_factor(o.step_factor);
  opts->set_iters(o.iters);
  opts->set_warmup_iters(o.warmup_iters);
  opts->set_skip_check(o.check == 0);
  opts->set_op_timeout_s(o.op_timeout_s);
  if (absl::Status v = nccl::ValidateOptions(nccl::WithDefaults(*opts)); !v.ok()) {
    return controlplane::StatusExit(v);
  }
  v1::TaskResult done =
      tasks::RunTask(platform::kSelfExe, task, absl::Now() + absl::Seconds(o.timeout_s));
  const v1::ProbeResult r =
      done.report().results_size() > 0 ? done.report().results(0) : done.result();
  if (!PrintAs(o.format, r, [&] { return RenderNccl(r); })) return controlplane::kExitCouldNotRun;
  return controlplane::ExitCodeForVerdict(r.verdict());
}

}  // namespace

std::function<int()> AddNcclCommand(CLI::App& app) {
  auto o = std::make_shared<NcclOptions>();
  CLI::App* cmd = app.add_subcommand(
      "nccl",
      "Run NCCL collectives over this node's GPUs like nccl-tests (one rank per GPU, each in "
      "its own worker): time, algbw, busbw and a check of every result, plus what NCCL used. "
      "Exit 0 clean, 1 FAIL (wrong results, below the profile), 2 bad input, 3 could not run "
      "(hang, NCCL error).");
  cmd->add_option("--collective", o->collectives,
                  "all_reduce, all_gather, broadcast, reduce_scatter, reduce, alltoall, "
                  "sendrecv (repeat; default all)");
  cmd->add_option("-b,--min-bytes", o->min_bytes, "Smallest size (default 1M)");
  cmd->add_option("-e,--max-bytes", o->max_bytes, "Largest size (default 256M)");
  cmd->add_option("-f,--step-factor", o->step_factor, "Multiply the size by this (default 4)");
  cmd->add_option("--sizes", o->sizes, "A list instead of the sweep: 1M,64M,1G");
  cmd->add_option("-n,--iters", o->iters, "Timed iterations per size (default 20)");
  cmd->add_option("-w,--warmup-iters", o->warmup_iters, "Warm-up iterations (default 5)");
  cmd->add_option("-c,--check", o->check, "Check every result (1, default) or not (0)")
      ->check(CLI::Range(0, 1));
  cmd->add_option("--op-timeout", o->op_timeout_s,
                  "Seconds one size of one collective may take before the communicator is "
                  "aborted (default 60)");
  cmd->add_option("--timeout", o->timeout_s, "Seconds for the whole run")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile: nccl.<collective>_busbw_min_gbps bars, nccl.env, and "
                  "run settings the flags do not override");
  cmd->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--node-name", o->node_name, "Name this node in the result")
      ->check(controlplane::NameCheck());
  cmd->add_flag("--force", o->force,
                "Run even where GPU compute processes or a Slurm job are on the node (the "
                "busy-node guard SKIPs with NODE_BUSY otherwise)");
  return [=]() -> int { return cmd->parsed() ? RunNccl(*o) : -1; };
}

}  // namespace nodeprobe::cli
