// File: preflight_command.cc
#include "cli/preflight_command.h"

#include <memory>

#include "cli/run_command.h"

namespace nodeprobe::cli {

std::function<int()> AddPreflightCommand(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  o->stage = "preflight";
  o->timeout_s = 30;
  CLI::App* cmd = app.add_subcommand(
      "preflight",
      "Check, from inside the job's container, VM or Slurm step, what the job will meet: locked "
      "memory and /dev/shm against its ranks, its NCCL_* variables against the devices and "
      "interfaces it sees, the RDMA it expects usable here. Same as `run --stage preflight`.");
  cmd->footer(
      "Exit codes: 0 the job can start (every check PASS, WARN or SKIP); 1 it would fail or "
      "crawl here (a FAIL: the finding names the fix); 2 usage or profile error; 3 a check "
      "could not run.");
  cmd->add_option("--gpus", o->gpus,
                  "GPUs (local ranks) the job was granted; default: SLURM_STEP_GPUS, "
                  "SLURM_GPUS_ON_NODE, CUDA_VISIBLE_DEVICES, else the GPUs visible here")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--probe", o->probes,
                  "Run only this probe (repeatable): memlock, shm, nccl-env, rdma-exposure");
  cmd->add_option("--format", o->format, "table, json, junit or md")
      ->check(CLI::IsMember({"table", "json", "junit", "md"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile_path,
                  "Acceptance profile (YAML): its preflight: section (expect_rdma, memlock_min_mb, "
                  "shm_min_mb)");
  cmd->add_option("--timeout", o->timeout_s, "Deadline in seconds")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", o->quiet, "Print nothing in table format; rely on the exit code");
  return [cmd, o]() -> int {
    if (!*cmd) return -1;
    return RunCommand(*o);
  };
}

}  // namespace nodeprobe::cli
