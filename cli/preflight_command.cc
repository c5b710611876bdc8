#include "cli/preflight_command.h"

#include <iostream>
#include <memory>

#include "absl/time/clock.h"
#include "cli/preflight_upload.h"
#include "cli/probe_argument_flags.h"
#include "cli/run_command.h"
#include "controlplane/command_line.h"
#include "controlplane/exit_codes.h"
#include "probes/builtin_probes.h"

namespace nodeprobe::cli {
namespace {

struct UploadOptions {
  std::string coordinator;
  controlplane::TlsFiles tls;
  std::string job;
};

}  // namespace

std::function<int()> AddPreflightCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  o->stage = "preflight";
  o->timeout_s = 30;
  CLI::App* cmd = app.add_subcommand(
      "preflight",
      "Check, from inside the job's container, VM or Slurm step, what the job will meet: locked "
      "memory and /dev/shm against its ranks, its NCCL_* variables against the devices and "
      "interfaces it sees, the RDMA it expects usable here, its secondary interfaces, the GPUs "
      "it sees against its grant and their nearest NICs. With --active also an all_reduce over "
      "its GPUs, a loopback transfer per RDMA port and the path MTU to --mtu-peer. Same as "
      "`run --stage preflight`. With a coordinator configured the result is also recorded "
      "there (never changing the exit code).");
  cmd->footer(
      "Exit codes: 0 the job can start (every check PASS, WARN or SKIP); 1 it would fail or "
      "crawl here (a FAIL: the finding names the fix); 2 usage or profile error; 3 a check "
      "could not run.");
  cmd->add_option("--probe", o->probes,
                  "Run only this probe (repeatable): memlock, shm, nccl-env, rdma-exposure, "
                  "interfaces, gpu-view, path-mtu");
  cmd->add_flag("--active", o->active,
                "Also the intrusive checks: NCCL all_reduce over the visible GPUs, a loopback "
                "transfer on each ACTIVE RDMA port, path MTU to --mtu-peer (seconds, not ms)");
  const ProbeRegistry registry = BuiltinProbes();
  AddProbeArgumentFlags(cmd, PreflightProbes(registry, true), &o->arguments);
  auto upload = std::make_shared<UploadOptions>();
  controlplane::AddControlFlags(cmd, &upload->coordinator, &upload->tls);
  cmd->add_option("--job", upload->job,
                  "Job label the coordinator records (default: slurm-$SLURM_JOB_ID, or the pod's "
                  "name)");
  cmd->add_option("--format", o->format, "table, json, junit or md")
      ->check(CLI::IsMember({"table", "json", "junit", "md"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile (YAML): its preflight: section (expect_rdma, memlock_min_mb, "
                  "shm_min_mb)");
  cmd->add_option("--timeout", o->timeout_s, "Deadline in seconds (the coordinator's record too)")
      ->check(controlplane::SecondsCheck())
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing in table format; rely on the exit code");
  return [cmd, o, upload]() -> int {
    if (!*cmd) return -1;
    const std::string job = upload->job.empty() ? DefaultJobLabel() : upload->job;
    // The upload shares the pre-flight's --timeout: it gets what is left.
    const absl::Time deadline = absl::Now() + absl::Seconds(o->timeout_s);
    o->on_report = [upload, job, quiet = o->quiet, deadline](const v1::StageReport& report) {
      UploadPreflight(upload->coordinator, upload->tls, job, report, quiet, deadline);
    };
    return RunCommand(*o);
  };
}

}  // namespace nodeprobe::cli
