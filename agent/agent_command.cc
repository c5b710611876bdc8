#include "agent/agent_command.h"

#include <limits.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "agent/agent.h"
#include "agent/agent_metrics.h"
#include "agent/kernel_watch.h"
#include "controlplane/command_line.h"
#include "controlplane/credentials.h"
#include "controlplane/environment.h"
#include "controlplane/exit_codes.h"
#include "controlplane/server_limits.h"
#include "controlplane/signals.h"
#include "nodeprobe_version.h"
#include "platform/identifiers.h"
#include "tasks/task_launcher.h"

namespace nodeprobe::agent {

std::string BesideThisBinary(const std::string& name) {
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return name;
  const std::string path(self, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/') + 1) + name;
}

void ExecAgentBinary(char** argv) {
  const std::string agent = BesideThisBinary("nodeprobe-agent");
  execv(agent.c_str(), argv);
  if (errno == ENOENT) return;  // not installed beside us: run in this process
  std::cerr << "nodeprobe agent: cannot start " << agent << " (" << strerror(errno)
            << "); running in this process\n";
}

namespace {

// The GPUs' NVLink counters for the kernel watch's samples, read by the
// `gpu` probe in a worker (NVML never loads in the agent). A node where it
// SKIPs (no driver, no GPU) is asked once, not every minute.
std::function<std::optional<v1::GpuReport>()> GpuCounterReader(const std::string& self_exe) {
  auto none = std::make_shared<std::atomic<bool>>(false);
  return [self_exe, none]() -> std::optional<v1::GpuReport> {
    if (none->load()) return std::nullopt;
    v1::Task task;
    task.set_task_id("nvlink-counters");
    task.mutable_run_probes()->set_stage(v1::SINGLE_NODE);
    task.mutable_run_probes()->add_probes("gpu");
    const v1::TaskResult result = tasks::RunTask(self_exe, task, absl::Now() + absl::Seconds(30));
    for (const v1::ProbeResult& r : result.report().results()) {
      if (r.probe() != "gpu") continue;
      if (r.verdict() == v1::SKIP) none->store(true);
      if (r.has_gpu() && r.gpu().gpus_size() > 0) return r.gpu();
    }
    return std::nullopt;
  };
}

// The agent until a signal: its metrics endpoint, the loopback health
// service, and the session with the coordinator.
int ServeAgent(AgentOptions o, const std::string& health, const std::string& metrics_listen,
               const std::string& kmsg, bool kmsg_given) {
  AgentMetrics metrics;
  if (!metrics_listen.empty()) {
    absl::StatusOr<int> port = metrics.Serve(metrics_listen);
    if (!port.ok()) {
      return controlplane::ErrorExit(std::string(port.status().message()),
                                     controlplane::kExitCouldNotRun);
    }
    std::cerr << "nodeprobe agent: metrics on port " << *port << "\n";
    o.metrics = &metrics;
  }
  // The kernel log: a path the operator named must work; the default
  // (/dev/kmsg, unreadable without CAP_SYSLOG) may not, and the agent says
  // so in every stage's answer instead of refusing to start.
  std::unique_ptr<KernelWatch> watch;
  if (!kmsg.empty()) {
    KernelWatch::Options w;
    w.path = kmsg;
    w.read_gpus = GpuCounterReader(o.self_exe);
    if (o.metrics) w.on_event = [m = o.metrics](const v1::KernelEvent& e) { m->KernelEvent(e); };
    absl::StatusOr<std::unique_ptr<KernelWatch>> started = KernelWatch::Start(std::move(w));
    if (started.ok()) {
      watch = *std::move(started);
      o.kernel_watch = watch.get();
    } else if (kmsg_given) {
      return controlplane::ErrorExit(
          absl::StrCat(started.status().message(), " (pass another --kmsg, or \"\" for none)"),
          controlplane::kExitUsage);
    } else {
      std::cerr << "nodeprobe agent: " << started.status().message()
                << "; stages will not see kernel events\n";
    }
  }
  Agent agent(o);
  // AgentLocal and the standard gRPC health service, on loopback, for
  // local supervisors (systemd, kubelet exec probes, an operator).
  AgentLocalService local(&agent);
  std::unique_ptr<grpc::Server> health_server;
  if (!health.empty()) {
    grpc::EnableDefaultHealthCheckService(true);
    grpc::ServerBuilder builder;
    builder.AddListeningPort(health, grpc::InsecureServerCredentials());
    builder.RegisterService(&local);
    controlplane::ApplyServerLimits(&builder);
    health_server = builder.BuildAndStart();
    if (!health_server) {
      return controlplane::ErrorExit(
          absl::StrCat("cannot listen on --health-listen ", health,
                       " (another agent here? pass another address or \"\")"),
          controlplane::kExitCouldNotRun);
    }
  }
  controlplane::StopOnSignal on_signal([&] { agent.Stop(); });
  std::cerr << "nodeprobe agent " << o.node_name << " -> " << o.coordinator << "\n";
  agent.Run();
  if (health_server) health_server->Shutdown();
  return controlplane::kExitOk;
}

}  // namespace

std::function<int()> AddAgentCommand(CLI::App& app, const std::string& worker_exe) {
  auto aopts = std::make_shared<AgentOptions>();
  aopts->self_exe = worker_exe;
  CLI::App* agent_cmd = app.add_subcommand(
      "agent", "Run the node agent: connect to the coordinator and run the tasks it sends.");
  controlplane::AddControlFlags(agent_cmd, &aopts->coordinator, &aopts->tls);
  auto health = std::make_shared<std::string>("127.0.0.1:18518");
  agent_cmd->add_option("--health-listen", *health,
                        "Local gRPC health endpoint (\"\" disables)")
      ->capture_default_str();
  auto metrics_listen = std::make_shared<std::string>("0.0.0.0:18519");
  agent_cmd->add_option("--metrics-listen", *metrics_listen,
                        "Prometheus /metrics (HTTP, read-only) on this address; \"\" disables")
      ->capture_default_str();
  agent_cmd->add_option("--node-name", aopts->node_name,
                        "Name to register (default: host name; must match the certificate)");
  agent_cmd->add_flag("--allow-disruptive", aopts->allow_disruptive,
                      "Take part in the failure stage: let the coordinator take this node's "
                      "rail links down for a few seconds (restored by a detached process even "
                      "if the agent dies). Off by default");
  agent_cmd
      ->add_option("--capture", aopts->capture_dir,
                   "Stand in for a captured node: probe tasks read DIR's sys/, proc/, etc/ "
                   "and dcbnl/ instead of this host (labs, replaying a capture through the "
                   "fleet); transfers and collectives still use this host")
      ->check(CLI::ExistingDirectory);
  auto kmsg = std::make_shared<std::string>("/dev/kmsg");
  CLI::Option* kmsg_opt =
      agent_cmd
          ->add_option("--kmsg", *kmsg,
                       "Follow this kernel log for hardware events (Xid, SXid, GPU off the bus, "
                       "PCIe AER, NIC link flaps): each stage's result carries the events that "
                       "fired during it, and /metrics counts them. A FIFO or a file works too "
                       "(tests, captures); \"\" disables")
          ->capture_default_str();
  // Local only (never set by the coordinator): lets tests substitute a task
  // worker that hangs, to check that the agent kills it at its deadline.
  agent_cmd->add_option("--task-worker", aopts->self_exe,
                        "Executable that runs tasks as `EXE task` (default: nodeprobe)")
      ->group("");

  return [=]() -> int {
    if (!agent_cmd->parsed()) return -1;
    auto address = controlplane::ResolveCoordinator(aopts->coordinator);
    if (!address.ok()) return controlplane::StatusExit(address.status());
    AgentOptions o = *aopts;
    o.coordinator = *address;
    if (access(o.self_exe.c_str(), X_OK) != 0) {
      return controlplane::ErrorExit(
          absl::StrCat("cannot run tasks: ", o.self_exe,
                       " is not an executable nodeprobe (install nodeprobe and "
                       "nodeprobe-agent side by side, or pass --task-worker)"));
    }
    if (o.node_name.empty()) o.node_name = controlplane::HostName();
    // The name goes into every run, path and report: checked before it is
    // ever sent (a coordinator refuses it too).
    if (absl::Status name = platform::CheckNodeName("node name", o.node_name); !name.ok()) {
      return controlplane::ErrorExit(absl::StrCat(name.message(), " (set --node-name)"));
    }
    if (!o.tls.insecure) {
      auto creds = controlplane::ClientCredentials(o.tls);
      if (!creds.ok()) return controlplane::StatusExit(creds.status());
    }
    return ServeAgent(std::move(o), *health, *metrics_listen, *kmsg, kmsg_opt->count() > 0);
  };
}

int AgentMain(int argc, char** argv) {
  // As in cli/nodeprobe_main.cc: Debian's abseil keeps a lock-order graph
  // of every mutex in memory it never returns.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  CLI::App app{"The nodeprobe node agent (`nodeprobe agent` runs this)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", NODEPROBE_VERSION);
  std::function<int()> run = AddAgentCommand(app, BesideThisBinary("nodeprobe"));
  if (std::optional<int> done =
          controlplane::ParseCommandLine(app, argc, argv, "nodeprobe-agent")) {
    return *done;
  }
  return run();
}

}  // namespace nodeprobe::agent
