#include "cli/slurm_health.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "cli/run_command.h"
#include "controlplane/command_line.h"
#include "controlplane/environment.h"
#include "controlplane/exit_codes.h"
#include "platform/child_process.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

// Slurm keeps a reason to a line; ours names the codes and where to look.
constexpr size_t kMaxReason = 200;

// `scontrol args...`: its stdout, or why it failed.
// At most 30 s, and never past the command's own --timeout (`until`).
absl::StatusOr<std::string> Scontrol(const std::string& scontrol,
                                     const std::vector<std::string>& args, absl::Time until) {
  const absl::Time deadline = std::min(absl::Now() + absl::Seconds(30), until);
  const absl::Duration allowed = absl::Trunc(deadline - absl::Now(), absl::Milliseconds(100));
  absl::StatusOr<platform::ProgramOutput> run = platform::RunProgram(scontrol, args, deadline);
  if (absl::IsDeadlineExceeded(run.status())) {
    return absl::DeadlineExceededError(absl::StrCat(
        scontrol, " did not answer within ", absl::FormatDuration(allowed),
        " (what --timeout left, 30 s at most)"));
  }
  if (!run.ok()) return run.status();
  if (!run->exited_cleanly) {
    return absl::UnavailableError(absl::StrCat(scontrol, " ", absl::StrJoin(args, " "), ": ",
                                               run->ending));
  }
  return std::move(run->out);
}

}  // namespace

SlurmNode ParseScontrolShowNode(absl::string_view oneliner) {
  SlurmNode node;
  // Key=value pairs separated by spaces; Reason's value runs to the end of
  // the line (it may hold spaces), as scontrol prints it last.
  const size_t reason_at = oneliner.find(" Reason=");
  absl::string_view fields = oneliner.substr(0, reason_at);
  for (absl::string_view kv : absl::StrSplit(fields, ' ', absl::SkipEmpty())) {
    if (absl::StartsWith(kv, "NodeName=")) node.found = true;
    if (absl::StartsWith(kv, "State=")) node.drained = absl::StrContains(kv, "DRAIN");
  }
  if (reason_at != absl::string_view::npos) {
    absl::string_view reason =
        absl::StripTrailingAsciiWhitespace(oneliner.substr(reason_at + strlen(" Reason=")));
    // "... [root@2026-12-04T16:40:11]" is slurmctld's, not the reason's.
    if (size_t by = reason.rfind(" ["); by != absl::string_view::npos && absl::EndsWith(reason, "]")) {
      reason = reason.substr(0, by);
    }
    node.reason = std::string(reason);
  }
  return node;
}

SlurmAction DecideSlurmAction(const v1::StageReport& report, const SlurmNode& node) {
  SlurmAction a;
  const bool ours = absl::StartsWith(node.reason, kSlurmReasonPrefix);
  switch (report.verdict()) {
    case v1::FAIL: {
      std::vector<std::string> codes;
      for (const v1::ProbeResult& r : report.results()) {
        for (const v1::Finding& f : r.findings()) {
          if (f.severity() == v1::FAIL &&
              std::find(codes.begin(), codes.end(), f.code()) == codes.end()) {
            codes.push_back(f.code());
          }
        }
      }
      a.kind = SlurmAction::kDrain;
      a.reason = absl::StrCat(kSlurmReasonPrefix, absl::StrJoin(codes, ","));
      if (a.reason.size() > kMaxReason) a.reason = a.reason.substr(0, kMaxReason - 3) + "...";
      a.why = absl::StrCat("FAIL: draining (", a.reason, ")");
      return a;
    }
    case v1::PASS:
    case v1::WARN:
      if (node.drained && ours) {
        a.kind = SlurmAction::kResume;
        a.why = absl::StrCat(VerdictName(report.verdict()), ": resuming (it was drained by us: ",
                             node.reason, ")");
      } else {
        a.why = absl::StrCat(VerdictName(report.verdict()), ": nothing to do",
                             node.drained ? " (drained by someone else: " + node.reason + ")"
                                          : "");
      }
      return a;
    default:
      a.why = absl::StrCat(VerdictName(report.verdict()),
                           ": the checks could not judge this node; nothing changed");
      return a;
  }
}

namespace {

struct SlurmHealthOptions {
  RunOptions run;
  std::string node;
  std::string scontrol = "scontrol";
  std::string capture;
  bool dry_run = false;
};

// One health check: the checks, this node's state at slurmctld, and the
// drain or resume they call for (none with --dry-run).
int SlurmHealth(const SlurmHealthOptions& o) {
  RunOptions run = o.run;
  // --timeout bounds the whole command: the checks and every scontrol.
  const absl::Time until = absl::Now() + absl::Seconds(run.timeout_s);
  if (!o.capture.empty()) run.host.UseCapture(o.capture);
  std::string node = o.node;
  if (node.empty() && getenv("SLURMD_NODENAME") != nullptr) node = getenv("SLURMD_NODENAME");
  if (node.empty()) node = controlplane::HostName().substr(0, controlplane::HostName().find('.'));
  run.node_name = node;

  absl::StatusOr<v1::StageReport> report = RunStageHere(run);
  if (!report.ok())
    return controlplane::ErrorExit(std::string(report.status().message()),
                                   controlplane::kExitUsage);
  absl::StatusOr<std::string> shown =
      Scontrol(o.scontrol, {"show", "node", node, "--oneliner"}, until);
  if (!shown.ok()) {
    return controlplane::ErrorExit(
        absl::StrCat("cannot read node ", node, " from slurmctld: ", shown.status().message(),
                     " (check SLURM_CONF, munge, and --node)"),
        controlplane::kExitCouldNotRun);
  }
  const SlurmNode state = ParseScontrolShowNode(*shown);
  if (!state.found) {
    return controlplane::ErrorExit(
        absl::StrCat("slurmctld does not know a node ", node, " (pass Slurm's name with --node)"),
        controlplane::kExitCouldNotRun);
  }
  const SlurmAction action = DecideSlurmAction(*report, state);
  std::cout << "nodeprobe slurm-health " << node << ": " << action.why
            << (o.dry_run && action.kind != SlurmAction::kNone ? " [dry run]" : "") << "\n";
  if (o.dry_run || action.kind == SlurmAction::kNone) {
    return action.kind == SlurmAction::kDrain ? controlplane::kExitFail
           : report->verdict() == v1::ERROR   ? controlplane::kExitCouldNotRun
                                              : controlplane::kExitOk;
  }
  std::vector<std::string> args = {"update", "NodeName=" + node};
  if (action.kind == SlurmAction::kDrain) {
    args.push_back("State=DRAIN");
    args.push_back("Reason=" + action.reason);
  } else {
    args.push_back("State=RESUME");
  }
  if (absl::StatusOr<std::string> done = Scontrol(o.scontrol, args, until); !done.ok()) {
    return controlplane::ErrorExit(std::string(done.status().message()),
                                   controlplane::kExitCouldNotRun);
  }
  return action.kind == SlurmAction::kDrain ? controlplane::kExitFail : controlplane::kExitOk;
}

}  // namespace

std::function<int()> AddSlurmHealthCommand(CLI::App& app) {
  auto o = std::make_shared<SlurmHealthOptions>();
  o->run.stage = "single-node";
  o->run.sweep = true;
  o->run.timeout_s = 120;
  CLI::App* cmd = app.add_subcommand(
      "slurm-health",
      "Slurm's HealthCheckProgram: run the quick single-node checks, drain this node on FAIL "
      "with the finding codes as the reason, resume it when a later check passes if nodeprobe "
      "drained it. SKIP or ERROR change nothing. Exit 0 healthy, 1 drained, 3 could not judge "
      "or reach slurmctld.");
  cmd->add_option("--node", o->node,
                  "Slurm's name of this node (default: $SLURMD_NODENAME, else the short host "
                  "name)");
  cmd->add_option("--profile", o->run.profile_path, "Acceptance profile (YAML)");
  cmd->add_option("--probe", o->run.probes,
                  "Only this probe (repeatable; default: every single-node probe)");
  cmd->add_option("--timeout", o->run.timeout_s, "Seconds for the checks")
      ->check(controlplane::SecondsCheck())
      ->capture_default_str();
  cmd->add_option("--scontrol", o->scontrol, "The scontrol to call")->capture_default_str();
  cmd->add_option("--capture", o->capture,
                  "Judge a captured node tree instead of this host (tests, rehearsals)")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--dry-run", o->dry_run, "Say what would be done; change nothing");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    return SlurmHealth(*o);
  };
}

}  // namespace nodeprobe::cli
