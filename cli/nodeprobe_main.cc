// File: nodeprobe_main.cc
// The `nodeprobe` command: flag parsing (CLI11) and dispatch. Everything
// else is in libraries that tests link directly. Compiled in one unit with
// the other files that declare flags (cli/CMakeLists.txt), so CLI11's
// definitions are compiled once for all of them.
#include "cli/nodeprobe_main.h"

#include <linux/dcbnl.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "agent/agent_command.h"
#include "agent/link_flap.h"
#include "cli/baseline_command.h"
#include "cli/control_commands.h"
#include "cli/evidence_command.h"
#include "cli/fleet_command.h"
#include "cli/kernel_log_command.h"
#include "cli/mtu_command.h"
#include "cli/nccl_command.h"
#include "cli/nccl_log_command.h"
#include "cli/preflight_command.h"
#include "cli/probe_argument_flags.h"
#include "cli/run_command.h"
#include "cli/slurm_health.h"
#include "cli/transfer_command.h"
#include "cli/workload_command.h"
#include "controlplane/command_line.h"
#include "controlplane/exit_codes.h"
#include "nodeprobe_version.h"
#include "platform/dcbnl.h"
#include "probes/builtin_probes.h"
#include "tasks/task_worker.h"

namespace {

constexpr char kMainExitCodesHelp[] =
    "Exit codes: 0 every probe PASS/WARN/SKIP; 1 any FAIL; 2 usage or "
    "profile error; 3 any ERROR (could not run) and no FAIL.";

namespace controlplane = nodeprobe::controlplane;

// What `run` parses into: the local stage's options, the multi-node ones,
// and a capture directory standing in for this machine.
struct RunFlags {
  nodeprobe::cli::RunOptions run;
  nodeprobe::cli::MultiNodeRun multi;
  std::string capture_dir;
};

// Which probes run, and their declared arguments (the job's GPU grant, path-mtu's peer).
void AddProbeSelectionFlags(CLI::App* run_cmd, RunFlags& f) {
  run_cmd->add_option("--probe", f.run.probes,
                      "Run only this probe (repeatable); see `nodeprobe probes`");
  const nodeprobe::ProbeRegistry registry = nodeprobe::BuiltinProbes();
  nodeprobe::cli::AddProbeArgumentFlags(run_cmd, registry.List(), &f.run.arguments);
}

// `run`'s flags for the stage on this node (and what every stage shares).
void AddLocalRunFlags(CLI::App* run_cmd, RunFlags& f) {
  run_cmd
      ->add_option("--stage", f.run.stage,
                   "Stage to run: single-node (this node, or --nodes through a "
                   "coordinator), two-node (--nodes A,B), cluster (every pair in rounds, "
                   "then blame and retests), congestion (incast and all-to-all at once: "
                   "loads the fabric, run it on purpose), failure (takes a link down "
                   "mid-transfer: --allow-disruptive), workload (the profile's workload: job "
                   "shape replayed on --nodes: step time, communication share, the late rank; "
                   "`nodeprobe workload plan` shows it first), preflight (what the job will "
                   "meet, from inside its container: `nodeprobe preflight`)")
      ->required()
      ->check(CLI::IsMember({"single-node", "preflight", "two-node", "cluster", "congestion",
                             "failure", "workload"}));
  AddProbeSelectionFlags(run_cmd, f);
  run_cmd
      ->add_option("--format", f.run.format,
                   "table, json (protobuf JSON), junit (JUnit XML for CI systems) or md "
                   "(Markdown)")
      ->check(CLI::IsMember({"table", "json", "junit", "md"}))
      ->capture_default_str();
  run_cmd->add_option("--profile", f.run.profile_path,
                      "Acceptance profile (YAML): expected rates, link layer, "
                      "pinned versions, accepted exceptions");
  CLI::Option* capture_opt =
      run_cmd
          ->add_option("--capture", f.capture_dir,
                       "Judge a captured node: DIR holds sys/, proc/, etc/ (os-release) and "
                       "optionally topology.xml (lstopo --of xml); what it lacks is "
                       "reported as not captured, never read from this machine")
          ->check(CLI::ExistingDirectory);
  run_cmd
      ->add_option("--sysfs-root", f.run.host.sys_root,
                   "Read sysfs from this tree instead of /sys (a captured "
                   "node)")
      ->check(CLI::ExistingDirectory)
      ->excludes(capture_opt)
      ->capture_default_str();
  run_cmd
      ->add_option("--procfs-root", f.run.host.proc_root,
                   "Read procfs from this tree instead of /proc")
      ->check(CLI::ExistingDirectory)
      ->excludes(capture_opt)
      ->capture_default_str();
  run_cmd
      ->add_option("--etc-root", f.run.host.etc_root,
                   "Read os-release from this tree instead of /etc")
      ->check(CLI::ExistingDirectory)
      ->excludes(capture_opt)
      ->capture_default_str();
  run_cmd
      ->add_option("--topology-xml", f.run.host.topology_xml,
                   "Read the topology from this hwloc XML export (lstopo "
                   "--of xml) instead of the live machine")
      ->check(CLI::ExistingFile);
  run_cmd->add_option("--netns", f.run.netns,
                      "Run from this network namespace (name, PID or path)");
  run_cmd
      ->add_option("--node-name", f.run.node_name,
                   "Name to report for this node (default: host name)")
      ->check(controlplane::NameCheck());
  run_cmd->add_option("--timeout", f.run.timeout_s, "Deadline for the whole stage, in seconds")
      ->check(controlplane::SecondsCheck())
      ->capture_default_str();
  run_cmd
      ->add_option("--textfile", f.run.textfile_dir,
                   "Also write DIR/nodeprobe.prom for node_exporter's textfile collector")
      ->check(CLI::ExistingDirectory);
  run_cmd->add_flag("--force", f.run.force,
                    "Run the intrusive probes and stages (GPU copies, collectives, transfers) "
                    "even where the busy-node guard finds GPU compute processes or a Slurm "
                    "job: you know what runs there and that it may be disturbed");
  run_cmd->add_flag("--sweep", f.run.sweep,
                    "A scheduled health sweep: the intrusive probes SKIP unless the profile "
                    "sets guard.intrusive_in_sweep: true");
  run_cmd->add_flag("--quiet,-q", f.run.quiet,
                    "Print nothing in table format; rely on the exit code");
}

// `run --stage workload`'s burst during the steps.
void AddBurstFlags(CLI::App* run_cmd, RunFlags& f) {
  run_cmd
      ->add_option("--burst", f.multi.burst,
                   "Workload stage: a burst during the measured steps, run by each node: storage "
                   "(checkpoints written to the profile's first storage.paths entry), "
                   "east-west (bulk TCP from each node to the next) or competing (a second "
                   "collective job: an all-reduce loop of the nodes' first ranks on their own "
                   "Gloo context); the record judges the steps before, during and after it "
                   "(WORKLOAD_BURST_STALLS above workload.burst_slowdown_max)")
      ->check(CLI::IsMember({"storage", "east-west", "competing"}));
  run_cmd
      ->add_option("--burst-at", f.multi.burst_at,
                   "Workload --burst: the measured step it starts at (default: a third of the way)")
      ->check(CLI::Range(1, 100000));
  run_cmd
      ->add_option("--burst-steps", f.multi.burst_steps,
                   "Workload --burst: how many steps it lasts (default: a third of the steps)")
      ->check(CLI::Range(1, 100000));
}

// `run`'s flags for stages through a coordinator.
void AddMultiNodeFlags(CLI::App* run_cmd, RunFlags& f) {
  CLI::Option* nodes_opt = run_cmd
                               ->add_option("--nodes", f.multi.nodes,
                                            "Nodes for two-node/cluster stages, e.g. gpu01,gpu02")
                               ->delimiter(',')
                               ->check(controlplane::NameCheck());
  run_cmd
      ->add_flag("--all", f.multi.all_nodes,
                 "Cluster/congestion stages: every agent connected to the coordinator")
      ->excludes(nodes_opt);
  run_cmd->add_flag("--allow-disruptive", f.multi.allow_disruptive,
                    "Failure stage: yes, take the first node's link toward the second down "
                    "for a few seconds (its agent must allow it too)");
  run_cmd
      ->add_option("--scenario", f.multi.scenarios,
                   "Failure stage: link-down (default: the first node's link toward the "
                   "second down mid-transfer) or agent-restart (the second node's agent "
                   "restarts mid-transfer); repeatable")
      ->check(CLI::IsMember({"link-down", "agent-restart"}));
  run_cmd
      ->add_option("--resume", f.multi.resume,
                   "Cluster stage: go on with this interrupted run (see `nodeprobe runs`): "
                   "its measured pairs are kept, the rest run")
      ->check(controlplane::NameCheck());
  run_cmd
      ->add_option("--pattern", f.multi.pattern,
                   "Cluster stage: all-pairs (every pair, n-1 rounds of pairs at once) or "
                   "ring (each node with its neighbour: 2-3 rounds)")
      ->check(CLI::IsMember({"all-pairs", "ring"}))
      ->capture_default_str();
  run_cmd
      ->add_option("--rails", f.multi.rails,
                   "Rails for two-node/cluster: all (default) or names, e.g. mlx5_0,mlx5_1")
      ->delimiter(',');
  controlplane::AddControlFlags(run_cmd, &f.multi.coordinator, &f.multi.tls);
  run_cmd
      ->add_option("--transfer-seconds", f.multi.transfer_seconds,
                   "Seconds per transfer direction in the two-node and cluster stages")
      ->check(CLI::Range(1, 3600))
      ->capture_default_str();
  run_cmd
      ->add_option_function<std::string>(
          "--soak",
          [&f](const std::string& text) {
            absl::Duration d;
            if (!absl::ParseDuration(text, &d) || d <= absl::ZeroDuration() ||
                d > absl::Hours(23)) {
              throw CLI::ValidationError(
                  "--soak", "'" + text + "' is not a duration up to 23h (e.g. 60s, 20m, 2h)");
            }
            f.multi.soak_s = absl::ToDoubleSeconds(d);
          },
          "Repeat the measurements for DURATION (60s, 20m, 2h) and judge them over time: the "
          "two-node and cluster stages' transfers, each direction; single-node (on this node): "
          "its intrusive bandwidth probes, each figure; spread and drift (the profile's soak: "
          "section), and every kernel event in the window. --timeout defaults to DURATION + "
          "10 minutes")
      ->type_name("DURATION");
  run_cmd
      ->add_option("--kmsg", f.run.kmsg_path,
                   "Single-node --soak: the kernel log it watches for Xid, AER and link events "
                   "in its window (/dev/kmsg, readable with CAP_SYSLOG; a FIFO or file for tests "
                   "and captures)")
      ->type_name("PATH")
      ->capture_default_str();
  run_cmd->add_flag("--gpu-memory", f.multi.gpu_memory,
                    "Two-node and cluster stages: RDMA transfers between GPU buffers, each end "
                    "on its rail's nearest GPU (GPUDirect RDMA both ways, as NCCL moves data)");
  run_cmd->add_flag("--storage-storm", f.multi.storage_storm,
                    "Cluster stage: every node writes its checkpoint to the profile's first "
                    "storage.paths entry (a shared filesystem) at the same moment, after one "
                    "node alone: aggregate bandwidth, the slowest node and its slowdown, judged "
                    "against storage.checkpoint_max_s");
  AddBurstFlags(run_cmd, f);
  run_cmd->add_flag("--cancel-on-interrupt", f.multi.cancel_on_interrupt,
                    "Multi-node: Ctrl-C cancels the run at the coordinator without asking "
                    "(without a terminal on stdin it always does; on one, it asks)");
}

// `run`: a stage here, or through a coordinator; the dispatcher returns -1
// when another command was chosen.
std::function<int()> AddRunCommand(CLI::App& app) {
  auto f = std::make_shared<RunFlags>();
  CLI::App* run_cmd =
      app.add_subcommand("run", "Run a stage's probes on this node and print the verdict.");
  run_cmd->footer(kMainExitCodesHelp);
  AddLocalRunFlags(run_cmd, *f);
  AddMultiNodeFlags(run_cmd, *f);
  return [run_cmd, f]() -> int {
    if (!*run_cmd) return -1;
    // CLI11's number checks let NaN through (every comparison with it is
    // false), so the deadline is checked here.
    if (!std::isfinite(f->run.timeout_s) || f->run.timeout_s <= 0 || f->run.timeout_s > 86400) {
      std::cerr << "nodeprobe: error: --timeout must be a number of seconds in (0, 86400]\n";
      return controlplane::kExitUsage;
    }
    if (!f->capture_dir.empty()) f->run.host.UseCapture(f->capture_dir);
    if (run_cmd->get_option("--kmsg")->count() > 0 &&
        (f->multi.soak_s <= 0 || f->run.stage != "single-node")) {
      return controlplane::ErrorExit(
          "--kmsg is the kernel log a single-node --soak watches on this node: add --soak "
          "DURATION (agents watch their own, with the agent's --kmsg)",
          controlplane::kExitUsage);
    }
    if (f->multi.soak_s > 0 && f->run.stage == "preflight") {
      return controlplane::ErrorExit(
          "--soak repeats the single-node, two-node and cluster stages' measurements; a "
          "pre-flight is one look before a job",
          controlplane::kExitUsage);
    }
    // Multi-node stages, and single-node on named nodes, go through a
    // coordinator; plain single-node runs here, in-process.
    const bool here = f->run.stage == "single-node" || f->run.stage == "preflight";
    f->run.soak_s = f->multi.soak_s;
    if (!here || !f->multi.nodes.empty() || f->multi.all_nodes) {
      f->multi.stage = f->run.stage;
      f->multi.format = f->run.format;
      f->multi.timeout_s = f->run.timeout_s;
      if (f->multi.soak_s > 0 && run_cmd->get_option("--timeout")->count() == 0) {
        f->multi.timeout_s = std::min(86400.0, f->multi.soak_s + 600);
      }
      f->multi.quiet = f->run.quiet;
      f->multi.profile_path = f->run.profile_path;
      f->multi.force = f->run.force;
      if (f->run.sweep) {
        return controlplane::ErrorExit(
            "--sweep is for single-node runs on this node (the scheduled sweep); drop it for a "
            "stage through the coordinator");
      }
      if (!f->run.probes.empty()) {
        // Silently running every probe instead would mislead.
        return controlplane::ErrorExit(
            "--probe picks probes on this node only; through the coordinator every node runs "
            "the stage's probes: drop --probe (or run it on the node itself)",
            controlplane::kExitUsage);
      }
      if (!f->run.arguments.empty()) {
        return controlplane::ErrorExit(
            nodeprobe::cli::CheckArgumentsFitProbes(
                f->run.arguments, {}, nodeprobe::BuiltinProbes(),
                "through the coordinator each stage sets its probes' arguments: drop it"),
            controlplane::kExitUsage);
      }
      return nodeprobe::cli::RunMultiNode(f->multi);
    }
    return nodeprobe::cli::RunCommand(f->run);
  };
}

// What nodeprobe knows: its probes, finding codes, profile keys, version.
std::function<int()> AddInfoCommands(CLI::App& app) {
  auto probes_format = std::make_shared<std::string>("table");
  CLI::App* probes_cmd = app.add_subcommand("probes", "List the probes, their stages and purpose.");
  probes_cmd->add_option("--format", *probes_format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  auto findings_format = std::make_shared<std::string>("table");
  CLI::App* findings_cmd = app.add_subcommand(
      "findings",
      "List every finding code: its severity (or the rule that sets it), the probe or stage that "
      "emits it, what it means and what to do (the names profile exceptions match).");
  findings_cmd->add_option("--format", *findings_format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  struct ProfileFlags {
    bool explain = false;
    std::string check;
    std::string format = "table";
  };
  auto profile = std::make_shared<ProfileFlags>();
  CLI::App* profile_cmd =
      app.add_subcommand("profile",
                         "Explain the acceptance profile's keys (--explain), or validate a profile "
                         "file (--check FILE).");
  profile_cmd->add_flag("--explain", profile->explain,
                        "Print every key: its type or range, what applies without it, and what "
                        "it does");
  profile_cmd->add_option("--check", profile->check,
                          "Parse and validate FILE; an error names FILE:LINE and the fix");
  profile_cmd->add_option("--format", profile->format, "Output format of --explain")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  CLI::App* version_cmd = app.add_subcommand("version", "Print the nodeprobe version.");
  return [=]() -> int {
    if (*probes_cmd) return nodeprobe::cli::ListProbesCommand(*probes_format);
    if (*findings_cmd) return nodeprobe::cli::ListFindingsCommand(*findings_format);
    if (*profile_cmd) {
      return nodeprobe::cli::ProfileCommand(profile->explain, profile->check, profile->format);
    }
    if (*version_cmd) {
      std::cout << "nodeprobe " << NODEPROBE_VERSION << "\n";
      return controlplane::kExitOk;
    }
    return -1;
  };
}

// Hidden commands the agent and `run` start: one task, the link flapper.
// Writes DIR/IF.ieee and DIR/IF.dcbx as the kernel sent them. A kernel
// error reply (a driver without dcbnl) is saved too, as that host's answer,
// and said; failing to ask at all exits 3.
int SaveDcbReplies(const std::string& netdev, const std::string& dir) {
  std::string replies[2];  // IEEE, DCBX
  const std::pair<uint8_t, const char*> kinds[2] = {{DCB_CMD_IEEE_GET, ".ieee"},
                                                    {DCB_CMD_GDCBX, ".dcbx"}};
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<std::string> reply = nodeprobe::platform::QueryDcb(netdev, kinds[i].first);
    if (!reply.ok()) {
      return controlplane::ErrorExit(std::string(reply.status().message()),
                                     controlplane::kExitCouldNotRun);
    }
    // A kernel error reply is kept too: it is what that host answers.
    const std::string path = absl::StrCat(dir, "/", netdev, kinds[i].second);
    std::ofstream out(path, std::ios::binary);
    out << *reply;
    if (!out.flush()) {
      return controlplane::ErrorExit(absl::StrCat(path, ": could not be written"),
                                     controlplane::kExitCouldNotRun);
    }
    replies[i] = *std::move(reply);
  }
  // What the saved bytes say, read as a capture reads them.
  if (absl::StatusOr<nodeprobe::platform::DcbState> s =
          nodeprobe::platform::ParseDcbReplies(netdev, replies[0], replies[1]);
      !s.ok()) {
    std::cerr << "nodeprobe: " << s.status().message() << "\n";
  }
  return controlplane::kExitOk;
}

std::function<int()> AddInternalCommands(CLI::App& app) {
  // Internal: runs one task (a nodeprobe.v1.Task on stdin) for the agent
  // and for `run`; hidden from --help.
  CLI::App* task_cmd = app.add_subcommand("task", "Run one task from stdin (internal)");
  task_cmd->group("");
  // Internal: the failure stage's flapper, started detached by an agent
  // that allows it (agent/link_flap.h); hidden from --help.
  struct FlapFlags {
    std::string netdev;
    double seconds = 0;
  };
  auto flap = std::make_shared<FlapFlags>();
  CLI::App* flap_cmd =
      app.add_subcommand("link-flap", "Take an interface down, then up (internal)");
  flap_cmd->group("");
  flap_cmd->add_option("--netdev", flap->netdev)->required();
  flap_cmd->add_option("--down-seconds", flap->seconds)->required()->check(CLI::Range(0.1, 60.0));

  // Internal: saves an interface's raw dcbnl replies as a capture's
  // dcbnl/IF.ieee and IF.dcbx (hwtests/roce_config.sh); hidden from --help.
  auto dcb = std::make_shared<std::pair<std::string, std::string>>();  // netdev, dir
  CLI::App* dcb_cmd = app.add_subcommand("dcb-capture", "Save IF's dcbnl replies (internal)");
  dcb_cmd->group("");
  dcb_cmd->add_option("--netdev", dcb->first)->required();
  dcb_cmd->add_option("--out", dcb->second)->required()->check(CLI::ExistingDirectory);

  return [=]() -> int {
    if (*task_cmd) return nodeprobe::tasks::TaskWorkerMain();
    if (*flap_cmd) return nodeprobe::agent::LinkFlapMain(flap->netdev, flap->seconds);
    if (*dcb_cmd) return SaveDcbReplies(dcb->first, dcb->second);
    return -1;
  };
}

}  // namespace

int nodeprobe::cli::NodeprobeMain(int argc, char** argv) {
  // Debian builds abseil without NDEBUG, so absl::Mutex keeps a global
  // lock-order graph of every live mutex (gRPC makes several per
  // connection) in memory it never returns: after 8 waves of 3000 junk
  // connections the coordinator held ~11 MB more of it than idle, and every
  // lock paid for a graph update. Lock order is checked by the TSan step
  // (scripts/tsan.sh) and by the unit tests, which keep abseil's default.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);

  CLI::App app{
      "nodeprobe validates GPU nodes and the RDMA fabric between them for "
      "distributed AI work, and reports each check with evidence."};
  app.footer(kMainExitCodesHelp);
  app.require_subcommand(1);
  app.set_version_flag("--version", NODEPROBE_VERSION);
  // Each returns the chosen command's exit code, or -1 when it was not chosen.
  // In --help's order.
  std::vector<std::function<int()>> commands = {
      AddRunCommand(app),
      AddInfoCommands(app),
      AddInternalCommands(app),
      nodeprobe::cli::AddTransferCommand(app),
      nodeprobe::cli::AddMtuCommand(app),
      nodeprobe::cli::AddNcclLogCommand(app),
      nodeprobe::cli::AddKernelLogCommand(app),
      nodeprobe::cli::AddNcclCommand(app),
      nodeprobe::cli::AddPreflightCommand(app),
  };
  for (std::function<int()>& c : nodeprobe::cli::AddControlCommands(app)) {
    commands.push_back(std::move(c));
  }
  commands.push_back(nodeprobe::cli::AddFleetCommand(app));
  commands.push_back(nodeprobe::cli::AddEvidenceCommand(app));
  commands.push_back(nodeprobe::cli::AddSlurmHealthCommand(app));
  commands.push_back(nodeprobe::cli::AddWorkloadCommand(app));
  commands.push_back(nodeprobe::cli::AddBaselineCommand(app));
  if (std::optional<int> done = controlplane::ParseCommandLine(app, argc, argv, "nodeprobe")) {
    return *done;
  }
  // The agent is the one command that stays resident: it runs from its
  // own slim binary when that is installed beside this one.
  if (app.got_subcommand("agent")) nodeprobe::agent::ExecAgentBinary(argv);
  for (const std::function<int()>& command : commands) {
    if (int rc = command(); rc >= 0) return rc;
  }
  return controlplane::kExitUsage;
}
