// File: run_command.h
// `nodeprobe run`: runs a stage's probes on this node and prints the report.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/task.pb.h"
#include "platform/host_paths.h"
#include "probes/framework/probe_registry.h"

namespace nodeprobe::cli {

struct RunOptions {
  std::string stage;
  std::vector<std::string> probes;  // empty: every probe of the stage
  std::string format = "table";     // table | json
  std::string profile_path;
  platform::HostPaths host;
  std::string node_name;  // empty: this host's name
  std::string netns;      // enter this network namespace first
  std::string textfile_dir;  // also write DIR/nodeprobe.prom
  double timeout_s = 600;
  bool quiet = false;
  bool force = false;  // intrusive probes on a busy node
  bool sweep = false;  // scheduled: intrusive probes only if the profile says
  // Preflight: also the intrusive checks from inside the job (kActiveProbes
  // and the stage's intrusive ones, such as path-mtu).
  bool active = false;
  // The probes' own arguments by name, from their declared flags
  // (cli/probe_argument_flags.h): the job's GPU grant, path-mtu's peer.
  std::map<std::string, std::string> arguments;
  // Single-node: repeat the stage's intrusive bandwidth probes for this
  // long and judge their figures over time (cli/single_node_soak.h).
  double soak_s = 0;
  std::string kmsg_path = "/dev/kmsg";  // the kernel log a soak watches
  // Called with the report before it is printed (preflight: record it at
  // the coordinator).
  std::function<void(const v1::StageReport&)> on_report;
};

// What `preflight --active` adds to the stage's probes: a single-process
// all_reduce over the visible GPUs and a loopback transfer on each ACTIVE
// RDMA port, both from inside the job.
inline constexpr const char* kActiveProbes[] = {"nccl", "rdma-loopback"};

// The probes of a pre-flight: quick and harmless ones, and with `active`
// also the stage's intrusive probes and kActiveProbes.
std::vector<Probe*> PreflightProbes(const ProbeRegistry& registry, bool active);

// Runs the stage's probes on this node (in a worker process, within the
// timeout) and returns the report; INVALID_ARGUMENT for a bad stage, probe,
// profile or netns, with the fix.
absl::StatusOr<v1::StageReport> RunStageHere(const RunOptions& options);

// RunStageHere, printed. Returns the process exit code (cli/exit_codes.h).
int RunCommand(const RunOptions& options);

// A profile file read and validated here, as it travels with a task:
// INVALID_ARGUMENT naming the file, line and fix.
absl::StatusOr<v1::AcceptanceProfile> ReadAcceptanceProfile(const std::string& path);

// `nodeprobe findings`: every finding code and what it means.
int ListFindingsCommand(const std::string& format);

// `nodeprobe profile --explain`: every profile key (probes/framework/
// profile_keys.h) with its type, what applies without it and what it does;
// `--check FILE`: parses and validates FILE (0, or 2 with FILE:LINE: why).
int ProfileCommand(bool explain, const std::string& check_path, const std::string& format);

// `nodeprobe probes`: the probes with their stages and purpose.
int ListProbesCommand(const std::string& format);

}  // namespace nodeprobe::cli
