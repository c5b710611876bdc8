#include "cli/control_commands.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <set>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/time.h"
#include "agent/agent_command.h"
#include "cli/baseline_command.h"
#include "cli/html_report.h"
#include "cli/json_output.h"
#include "cli/junit_output.h"
#include "cli/run_command.h"
#include "cli/run_rendering.h"
#include "cli/table_renderer.h"
#include "controlplane/environment.h"
#include "controlplane/exit_codes.h"
#include "controlplane/grpc_status.h"
#include "controlplane/server_limits.h"
#include "controlplane/signals.h"
#include "coordinator/acceptance_gate.h"
#include "coordinator/baseline/trend.h"
#include "coordinator/coordinator_service.h"
#include "coordinator/run_pages.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/mutex.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_judge.h"
#include "probes/transfer/transfer_runner.h"
#include "tasks/task_launcher.h"

namespace nodeprobe::cli {
namespace {

// Set by SIGINT while a multi-node run is watched.
volatile sig_atomic_t g_interrupted = 0;

}  // namespace

absl::StatusOr<CoordinatorClient> ConnectCoordinator(const std::string& flag,
                                                     const controlplane::TlsFiles& tls) {
  absl::StatusOr<std::string> address = controlplane::ResolveCoordinator(flag);
  if (!address.ok()) return address.status();
  auto channel = controlplane::Dial(*address, tls);
  if (!channel.ok()) return channel.status();
  return CoordinatorClient{*address, v1::Coordinator::NewStub(*channel),
                           v1::Baselines::NewStub(*channel)};
}

int RpcErrorExit(const grpc::Status& s, const std::string& address) {
  if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
    // A TLS server closes a plaintext client's connection at once: the
    // symptom is "Socket closed", the cause the flags.
    const bool closed = absl::StrContains(s.error_message(), "Socket closed") ||
                        absl::StrContains(s.error_message(), "Connection reset");
    return controlplane::ErrorExit(
        absl::StrCat("coordinator ", address, " unreachable or refused the connection (",
                     s.error_message(),
                     closed ? "): it closed the connection at once, as a TLS coordinator "
                              "does to a plaintext client: give --tls-cert, --tls-key "
                              "and --tls-ca instead of --insecure (or the coordinator "
                              "is not running there)"
                            : "); check the address and TLS flags"),
        controlplane::kExitCouldNotRun);
  }
  return controlplane::StatusExit(controlplane::FromGrpcStatus(s));
}

int RpcErrorExit(const absl::Status& s, const std::string& address) {
  return RpcErrorExit(controlplane::ToGrpcStatus(s), address);
}

namespace {

// On a terminal: asks whether to cancel (30 s to answer, no means no).
bool OperatorSaysCancel(const std::string& run_id) {
  std::cerr << "\nCancel run " << run_id << " at the coordinator? [y/N] " << std::flush;
  pollfd in{0, POLLIN, 0};
  if (poll(&in, 1, 30000) <= 0) return false;
  std::string answer;
  std::getline(std::cin, answer);
  return !answer.empty() && (answer[0] == 'y' || answer[0] == 'Y');
}

// What happens to the run when its watcher is interrupted, said in one
// line: cancelled at the coordinator (--cancel-on-interrupt, no terminal,
// or the operator's yes), or left running and where to find it.
std::string InterruptedRun(v1::Coordinator::Stub* stub, const std::string& run_id,
                           const MultiNodeRun& o) {
  const bool cancel = o.cancel_on_interrupt || !isatty(0) || OperatorSaysCancel(run_id);
  if (!cancel) {
    return absl::StrCat("run ", run_id, " goes on at the coordinator (`nodeprobe report --run ",
                        run_id, "` when it ends)");
  }
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::CancelRunRequest req;
  req.set_run_id(run_id);
  v1::CancelRunResponse resp;
  const grpc::Status s = stub->CancelRun(&ctx, req, &resp);
  if (!s.ok()) {
    return absl::StrCat("run ", run_id, " could not be cancelled (", s.error_message(),
                        "); it may go on: `nodeprobe report --run ", run_id, "`");
  }
  return absl::StrCat(resp.message(), ": what it measured is kept (`nodeprobe report --run ",
                      run_id, "`, state \"cancelled\")");
}

}  // namespace

namespace {

// Everything about the flags that can be checked before the coordinator is
// contacted: a bad node list never starts a run.
absl::Status CheckMultiNodeFlags(const MultiNodeRun& o) {
  std::set<std::string> seen;
  for (const std::string& n : o.nodes) {
    if (n.empty())
      return absl::InvalidArgumentError("--nodes has an empty name (e.g. --nodes gpu01,gpu02)");
    if (!seen.insert(n).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("--nodes names '", n, "' twice; name each node once"));
    }
  }
  if (o.all_nodes && o.stage != "cluster" && o.stage != "congestion") {
    return absl::InvalidArgumentError(
        absl::StrCat("--all is for --stage cluster or congestion; give ", o.stage, " its --nodes"));
  }
  if (o.stage == "two-node" && o.nodes.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("two-node needs exactly 2 nodes in --nodes, got ", o.nodes.size()));
  }
  if (!o.resume.empty() && o.stage != "cluster") {
    return absl::InvalidArgumentError(
        "--resume is for --stage cluster (a cluster run that was interrupted)");
  }
  if (!o.resume.empty() && (o.all_nodes || !o.nodes.empty())) {
    return absl::InvalidArgumentError(
        "--resume takes the run's own nodes; leave out --nodes and --all");
  }
  if (o.stage == "cluster" && o.resume.empty() && !o.all_nodes && o.nodes.size() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the cluster stage needs --nodes with at least 2 nodes, or --all; got ", o.nodes.size()));
  }
  if (o.stage == "failure" && !o.allow_disruptive) {
    return absl::InvalidArgumentError(
        "the failure stage takes a node's link down mid-transfer; it runs only with "
        "--allow-disruptive");
  }
  if (o.stage == "failure" && o.nodes.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("the failure stage needs exactly 2 nodes in --nodes (the first "
                     "one's link goes down), got ",
                     o.nodes.size()));
  }
  if (o.stage == "congestion" && !o.all_nodes && o.nodes.size() < 3) {
    return absl::InvalidArgumentError(
        absl::StrCat("the congestion stage needs --nodes with at least 3 nodes, or --all; got ",
                     o.nodes.size()));
  }
  if (o.soak_s > 0 && o.stage != "two-node" && o.stage != "cluster") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--soak repeats the transfers of the two-node and cluster stages; --stage ", o.stage,
        " does not take it through a coordinator (a single-node soak "
        "runs on the node itself, without --nodes)"));
  }
  if (o.soak_s > 0 && o.soak_s + 60 > o.timeout_s) {
    return absl::InvalidArgumentError(
        absl::StrFormat("--soak %.0fs needs a --timeout at least 60 s longer (it is %.0f s)",
                        o.soak_s, o.timeout_s));
  }
  if (o.storage_storm && o.stage != "cluster") {
    return absl::InvalidArgumentError(
        absl::StrCat("--storage-storm is an option of the cluster stage; --stage ", o.stage,
                     " does not take it"));
  }
  if (o.gpu_memory && o.stage != "two-node" && o.stage != "cluster") {
    return absl::InvalidArgumentError(
        absl::StrCat("--gpu-memory is an option of the two-node and cluster stages; --stage ",
                     o.stage, " does not take it"));
  }
  if (!o.burst.empty() && o.stage != "workload") {
    return absl::InvalidArgumentError(absl::StrCat(
        "--burst is an option of the workload stage; --stage ", o.stage, " does not take it"));
  }
  if (o.burst.empty() && (o.burst_at > 0 || o.burst_steps > 0)) {
    return absl::InvalidArgumentError(
        "--burst-at and --burst-steps need --burst storage|east-west|competing");
  }
  if (o.nodes.empty() && !o.all_nodes && o.resume.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("--stage ", o.stage, " needs --nodes A,B,..."));
  }
  return absl::OkStatus();
}

v1::RunStageRequest StageRequest(const MultiNodeRun& o) {
  v1::RunStageRequest req;
  req.set_stage(StageFromName(o.stage));
  for (const auto& n : o.nodes) req.add_nodes(n);
  req.set_all_nodes(o.all_nodes);
  req.set_allow_disruptive(o.allow_disruptive);
  req.set_force(o.force);
  for (const std::string& s : o.scenarios) req.add_scenarios(s);
  req.set_resume_run_id(o.resume);
  if (o.stage == "cluster") req.set_pattern(o.pattern);
  for (const auto& r : o.rails) req.add_rails(r);
  req.set_timeout_s(o.timeout_s);
  req.set_transfer_seconds(o.transfer_seconds);
  req.set_soak_s(o.soak_s);
  req.set_storage_storm(o.storage_storm);
  req.set_gpu_memory(o.gpu_memory);
  if (!o.burst.empty()) {
    req.mutable_workload_burst()->set_kind(o.burst);
    req.mutable_workload_burst()->set_at_step(o.burst_at);
    req.mutable_workload_burst()->set_steps(o.burst_steps);
  }
  return req;
}

// What the stream of a stage said until it ended or Ctrl-C stopped it.
struct WatchedStage {
  grpc::Status status;
  v1::StageRun run;
  bool finished = false;
  std::string run_id;  // from the progress lines' "[ID]"
};

WatchedStage WatchStage(v1::Coordinator::Stub* stub, const v1::RunStageRequest& req,
                        const MultiNodeRun& o) {
  WatchedStage w;
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::milliseconds(static_cast<int64_t>(o.timeout_s * 1000) + 30000));
  auto reader = stub->RunStage(&ctx, req);
  v1::StageEvent ev;
  // Ctrl-C stops this client watching, not the run: said plainly, with
  // where to find the run, instead of a silent exit 130.
  g_interrupted = 0;
  struct sigaction on_int {}, old_int {};
  on_int.sa_handler = [](int) { g_interrupted = 1; };
  sigaction(SIGINT, &on_int, &old_int);
  std::atomic<bool> reading{true};
  std::thread watcher([&] {
    while (reading) {
      if (g_interrupted) {
        ctx.TryCancel();
        return;
      }
      usleep(50000);
    }
  });
  struct StopWatching {
    std::atomic<bool>* reading;
    std::thread* watcher;
    struct sigaction old;
    ~StopWatching() {
      *reading = false;
      watcher->join();
      sigaction(SIGINT, &old, nullptr);
    }
  } stop_watching{&reading, &watcher, old_int};
  while (reader->Read(&ev)) {
    if (ev.has_progress()) {
      if (!o.quiet) std::cerr << ev.progress() << "\n";
      if (w.run_id.empty() && absl::StartsWith(ev.progress(), "[")) {
        w.run_id = ev.progress().substr(1, ev.progress().find(']') - 1);
      }
    }
    if (ev.has_run()) {
      w.run = ev.run();
      w.finished = true;
    }
  }
  w.status = reader->Finish();
  return w;
}

// The finished run as --format asks (nothing in table format with --quiet).
int PrintRun(const v1::StageRun& run, const MultiNodeRun& o) {
  if (o.format == "json") {
    auto json = ToJson(coordinator::WithGate(run));
    if (!json.ok()) return controlplane::kExitCouldNotRun;
    std::cout << *json;
  } else if (o.format == "junit") {
    std::cout << JunitRun(run);
  } else if (o.format == "md") {
    std::cout << MarkdownRun(run);
  } else if (!o.quiet) {
    std::cout << RenderRun(run, controlplane::StdoutWantsColor());
  }
  return controlplane::ExitCodeForVerdict(run.verdict());
}

}  // namespace

int RunMultiNode(const MultiNodeRun& o) {
  // Everything that can be checked here is, before the coordinator is
  // contacted: a bad profile or node list never starts a run.
  v1::RunStageRequest req = StageRequest(o);
  if (!o.profile_path.empty()) {
    absl::StatusOr<v1::AcceptanceProfile> profile = ReadAcceptanceProfile(o.profile_path);
    if (!profile.ok()) return controlplane::StatusExit(profile.status());
    *req.mutable_profile() = *std::move(profile);
  }
  if (absl::Status flags = CheckMultiNodeFlags(o); !flags.ok()) {
    return controlplane::StatusExit(flags);
  }
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o.coordinator, o.tls);
  if (!client.ok()) return controlplane::StatusExit(client.status());
  const std::string* address = &client->address;
  std::unique_ptr<v1::Coordinator::Stub>& stub = client->stub;
  WatchedStage w = WatchStage(stub.get(), req, o);
  const grpc::Status& s = w.status;
  const std::string& run_id = w.run_id;
  v1::StageRun& run = w.run;
  if (g_interrupted) {
    if (run_id.empty()) {
      std::cerr << "nodeprobe: interrupted before the coordinator named a run (a run it had "
                   "just begun is in `nodeprobe runs`)\n";
      return 130;
    }
    std::cerr << "nodeprobe: interrupted: " << InterruptedRun(stub.get(), run_id, o) << "\n";
    return 130;
  }
  if (!s.ok() && !run_id.empty() &&
      (s.error_code() == grpc::StatusCode::UNAVAILABLE ||
       s.error_code() == grpc::StatusCode::CANCELLED)) {
    // The stream broke after the run started: the coordinator went away,
    // not the nodes.
    return controlplane::ErrorExit(
        absl::StrCat("COORDINATOR_LOST: coordinator ", *address, " went away during run ", run_id,
                     " (", s.error_message(),
                     "); the nodes are not at fault. When it "
                     "is back: `nodeprobe report --run ",
                     run_id, "` shows what was stored (a cluster run: --resume ", run_id, ")"),
        controlplane::kExitCouldNotRun);
  }
  if (!s.ok()) return RpcErrorExit(s, *address);
  if (!w.finished)
    return controlplane::ErrorExit("the coordinator ended the stage without a report",
                                   controlplane::kExitCouldNotRun);
  if (coordinator::IsPartial(run)) {  // a large run: the rest in pages
    absl::StatusOr<v1::StageRun> whole =
        coordinator::FetchRun(stub.get(), run.run_id(), absl::Now() + absl::Seconds(120));
    if (!whole.ok()) {
      return controlplane::ErrorExit(
          absl::StrCat("run ", run.run_id(), " finished but could not be read back: ",
                       whole.status().message(), " (nodeprobe report --run ", run.run_id(), ")"),
          controlplane::kExitCouldNotRun);
    }
    run = *std::move(whole);
  }
  return PrintRun(run, o);
}

namespace {

// `coordinator`: serves agents and operators until a signal.
std::function<int()> AddCoordinatorCommand(CLI::App& app) {
  auto copts = std::make_shared<coordinator::CoordinatorOptions>();
  CLI::App* coord = app.add_subcommand(
      "coordinator", "Run the coordinator: agents connect to it, it runs multi-node stages "
                     "and keeps every run in SQLite.");
  coord->add_option("--listen", copts->listen, "Address to listen on")->capture_default_str();
  copts->metrics_listen = "0.0.0.0:18520";
  coord->add_option("--metrics-listen", copts->metrics_listen,
                    "Prometheus /metrics (HTTP, read-only) on this address; \"\" disables")
      ->capture_default_str();
  coord->add_option("--db", copts->db_path,
                    "Run database (default /var/lib/nodeprobe/runs.db as root, else "
                    "$XDG_DATA_HOME/nodeprobe/runs.db)");
  coord->add_option("--tls-cert", copts->tls.cert, "Coordinator certificate (PEM)");
  coord->add_option("--tls-key", copts->tls.key, "Coordinator private key (PEM)");
  coord->add_option("--tls-ca", copts->tls.ca, "CA that signs agents' and clients' certificates");
  coord->add_flag("--insecure", copts->tls.insecure,
                  "Plaintext and no identity checks (labs only)");
  auto operators = std::make_shared<std::vector<std::string>>();
  coord->add_option("--operator", *operators,
                    "A certificate name (CN or DNS SAN) that may run stages and read runs and "
                    "nodes (repeatable). Agents' certificates only register; with mutual TLS "
                    "and no --operator, nobody can start a run (also $NODEPROBE_OPERATORS, "
                    "comma-separated)")
      ->envname("NODEPROBE_OPERATORS")
      ->delimiter(',');
  auto coord_profile = std::make_shared<std::string>();
  coord->add_option("--profile", *coord_profile,
                    "Default acceptance profile (YAML) for runs that name none");

  return [=]() -> int {
    if (!coord->parsed()) return -1;
    if (!coord_profile->empty()) {
      absl::StatusOr<v1::AcceptanceProfile> profile = ReadAcceptanceProfile(*coord_profile);
      if (!profile.ok()) return controlplane::StatusExit(profile.status());
      copts->default_profile = *std::move(profile);
    }
    std::unique_ptr<coordinator::CoordinatorServer> server;
    platform::Mutex mu;
    controlplane::StopOnSignal on_signal([&] {
      platform::MutexLock l(&mu);
      if (server) server->Shutdown();
    });
    copts->operators.insert(operators->begin(), operators->end());
    if (!copts->tls.insecure && copts->operators.empty()) {
      std::cerr << "nodeprobe coordinator: warning: no --operator: agents can register, "
                   "nobody can run stages or read runs\n";
    }
    auto started = coordinator::CoordinatorServer::Start(*copts);
    if (!started.ok())
      return controlplane::ErrorExit(std::string(started.status().message()),
                                     controlplane::kExitCouldNotRun);
    {
      platform::MutexLock l(&mu);
      server = *std::move(started);
    }
    std::cout << "nodeprobe coordinator listening on port " << server->port()
              << (copts->tls.insecure ? " (insecure)" : " (mutual TLS)");
    if (server->metrics_port() > 0) std::cout << "; metrics on " << server->metrics_port();
    if (server->interrupted_runs() > 0) {
      std::cout << "; " << server->interrupted_runs() << " interrupted runs marked ERROR";
    }
    std::cout << std::endl;
    server->Wait();
    return controlplane::kExitOk;
  };
}

// `status`: this node's agent, through its loopback endpoint.
std::function<int()> AddStatusCommand(CLI::App& app) {
  auto status_addr = std::make_shared<std::string>("127.0.0.1:18518");
  auto status_format = std::make_shared<std::string>("table");
  CLI::App* status_cmd = app.add_subcommand(
      "status", "Ask this node's agent how it is (its loopback endpoint); exit 0 when it is "
                "connected to the coordinator, 3 when not or when no agent answers.");
  status_cmd->add_option("--agent", *status_addr, "The agent's --health-listen address")
      ->capture_default_str();
  status_cmd->add_option("--format", *status_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();

  return [=]() -> int {
    if (!status_cmd->parsed()) return -1;
    // Loopback only, plaintext: the endpoint says nothing secret and
    // accepts nothing.
    auto channel = grpc::CreateChannel(*status_addr, grpc::InsecureChannelCredentials());
    auto stub = v1::AgentLocal::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::AgentStatus st;
    grpc::Status s = stub->Status(&ctx, v1::AgentStatusRequest(), &st);
    if (!s.ok()) {
      return controlplane::ErrorExit(
          absl::StrCat("no agent answers on ", *status_addr, " (", s.error_message(),
                       "); is nodeprobe-agent running, with this --health-listen?"),
          controlplane::kExitCouldNotRun);
    }
    if (*status_format == "json") {
      auto json = ToJson(st);
      if (json.ok()) std::cout << *json;
    } else {
      std::cout << "agent " << st.node_name() << " -> " << st.coordinator() << ": "
                << (st.connected() ? "connected" : "not connected") << ", " << st.registrations()
                << " registrations since start\n";
    }
    return st.connected() ? controlplane::kExitOk : controlplane::kExitCouldNotRun;
  };
}

// `runs`: the stored runs, a line each (or JSON).
std::function<int()> AddRunsCommand(CLI::App& app) {
  auto list_opts = std::make_shared<std::pair<std::string, controlplane::TlsFiles>>();
  auto list_format = std::make_shared<std::string>("table");
  CLI::App* runs_cmd = app.add_subcommand("runs", "List the runs the coordinator has stored.");
  controlplane::AddControlFlags(runs_cmd, &list_opts->first, &list_opts->second);
  runs_cmd->add_option("--format", *list_format, "table or json")
      ->check(CLI::IsMember({"table", "json"}));

  return [=]() -> int {
    if (!runs_cmd->parsed()) return -1;
    absl::StatusOr<CoordinatorClient> client =
        ConnectCoordinator(list_opts->first, list_opts->second);
    if (!client.ok()) return controlplane::StatusExit(client.status());
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    const std::string* address = &client->address;
    std::unique_ptr<v1::Coordinator::Stub>& stub = client->stub;
    v1::ListRunsRequest req;
    v1::ListRunsResponse resp;
    grpc::Status s = stub->ListRuns(&ctx, req, &resp);
    if (!s.ok()) return RpcErrorExit(s, *address);
    if (*list_format == "json") {
      auto json = ToJson(resp);
      if (json.ok()) std::cout << *json;
      return controlplane::kExitOk;
    }
    for (const v1::StageRun& r : resp.runs()) {
      std::cout << r.run_id() << "\t" << StageName(r.stage()) << "\t"
                << absl::StrJoin(r.nodes(), ",") << "\t" << VerdictName(r.verdict()) << "\t"
                << absl::FormatTime(absl::RFC3339_sec, absl::FromUnixSeconds(r.started().seconds()),
                                    absl::UTCTimeZone())
                << "\n";
    }
    return controlplane::kExitOk;
  };
}

// One record of one run or a campaign, in `format`; the gate first.
void PrintRecord(const std::vector<v1::StageRun>& fetched_runs, const std::string& format) {
  // One run, or a campaign of several: one record either way.
  const bool campaign = fetched_runs.size() > 1;
  const v1::StageRun& first = fetched_runs.front();
  if (format == "json") {
    v1::CampaignRecord all;  // a campaign: {"gate": ..., "runs": [...]}, each whole
    *all.mutable_gate() = coordinator::GateOf(fetched_runs);
    for (const v1::StageRun& r : fetched_runs) *all.add_runs() = r;
    auto json = campaign ? ToJson(all) : ToJson(coordinator::WithGate(first));
    if (json.ok()) std::cout << *json;
  } else if (format == "junit") {
    std::cout << (campaign ? JunitCampaign(fetched_runs) : JunitRun(first));
  } else if (format == "html") {
    std::cout << (campaign ? HtmlCampaign(fetched_runs) : HtmlRun(first));
  } else {
    // A campaign: its gate across the runs first, then each run.
    const bool md = format == "md";
    if (campaign) {
      const v1::GateChecklist gate = coordinator::GateOf(fetched_runs);
      v1::Verdict worst = v1::SKIP;
      for (const v1::StageRun& r : fetched_runs) worst = WorseVerdict(worst, r.verdict());
      std::cout << (md ? "# nodeprobe campaign of " : "campaign of ") << fetched_runs.size()
                << " runs: " << VerdictAndGate(worst, gate) << "\n\n";
      std::cout << (md ? MarkdownGate(gate) : RenderGate(gate)) << "\n";
    }
    for (size_t i = 0; i < fetched_runs.size(); ++i) {
      if (i > 0) std::cout << "\n";
      std::cout << (md ? MarkdownRun(fetched_runs[i], !campaign)
                       : RenderRun(fetched_runs[i], controlplane::StdoutWantsColor(), !campaign));
    }
  }
}

// A trend as `format` asks: its JSON, or the HTML or text page.
template <typename Trend>
int PrintTrend(const Trend& trend, const std::string& format, std::string (*html)(const Trend&),
               std::string (*text)(const Trend&)) {
  if (format == "json") {
    absl::StatusOr<std::string> json = ToJson(trend);
    if (!json.ok()) return controlplane::StatusExit(json.status());
    std::cout << *json << "\n";
  } else {
    std::cout << (format == "html" ? html(trend) : text(trend));
  }
  return controlplane::kExitOk;
}

// `report --trend NODE` (a node's figures over the accepted runs), or with
// `fleet` every class's (`filter`: the classes whose key holds it).
int TrendReport(CoordinatorClient& client, bool fleet, const std::string& node,
                const std::string& filter, const std::string& format) {
  int stored = 0;
  absl::StatusOr<baseline::History> history = FetchHistory(client, &stored);
  if (!history.ok()) return RpcErrorExit(history.status(), client.address);
  if (fleet) {
    return PrintTrend(baseline::FleetTrendOf(history->runs, history->marks, filter), format,
                      &HtmlFleetTrend, &RenderFleetTrend);
  }
  return PrintTrend(baseline::TrendOf(history->runs, node, history->marks), format, &HtmlTrend,
                    &RenderTrend);
}

// `report`: one stored run, or a campaign of runs, as one record.
std::function<int()> AddReportCommand(CLI::App& app) {
  auto report_opts = std::make_shared<std::pair<std::string, controlplane::TlsFiles>>();
  auto report_run = std::make_shared<std::string>();
  auto report_format = std::make_shared<std::string>("table");
  auto report_runs = std::make_shared<std::vector<std::string>>();
  CLI::App* report_cmd = app.add_subcommand(
      "report", "Print one stored run, or a campaign of runs (--runs A,B,...) as one record.");
  controlplane::AddControlFlags(report_cmd, &report_opts->first, &report_opts->second);
  auto* one_run = report_cmd->add_option("--run", *report_run, "Run id (see `nodeprobe runs`)")
                      ->check(controlplane::NameCheck());
  report_cmd
      ->add_option("--runs", *report_runs,
                   "Run ids of a campaign (single-node, two-node, cluster, congestion, "
                   "failure), comma-separated: one record with what needs attention across them")
      ->delimiter(',')
      ->check(controlplane::NameCheck())
      ->excludes(one_run);
  auto report_trend = std::make_shared<std::string>();
  report_cmd
      ->add_option("--trend", *report_trend,
                   "NODE: its figures over every accepted run, with its class's baseline "
                   "(table, json or html)")
      ->check(controlplane::NameCheck())
      ->excludes(one_run)
      ->excludes("--runs");
  auto fleet_trend = std::make_shared<bool>(false);
  auto trend_class = std::make_shared<std::string>();
  report_cmd
      ->add_flag("--fleet-trend", *fleet_trend,
                 "Every node class's figures over the accepted runs: per run the median, lowest "
                 "and highest of its nodes, with the class's baseline (table, json or html)")
      ->excludes(one_run)
      ->excludes("--runs")
      ->excludes("--trend");
  report_cmd->add_option("--class", *trend_class,
                         "With --fleet-trend: only classes whose key contains this text");
  report_cmd->add_option("--format", *report_format,
                         "table, json (protobuf JSON), md, junit (JUnit XML for CI systems), or "
                         "html (the acceptance record: one self-contained file)")
      ->check(CLI::IsMember({"table", "json", "md", "junit", "html"}));

  return [=]() -> int {
    if (!report_cmd->parsed()) return -1;
    // Said before any work: the trends print three of the formats.
    const bool trend = !report_trend->empty() || *fleet_trend;
    if (trend && *report_format != "table" && *report_format != "json" &&
        *report_format != "html") {
      return controlplane::ErrorExit(
          "--trend and --fleet-trend print --format table, json or html");
    }
    absl::StatusOr<CoordinatorClient> client =
        ConnectCoordinator(report_opts->first, report_opts->second);
    if (!client.ok()) return controlplane::StatusExit(client.status());
    if (trend) {
      return TrendReport(*client, *fleet_trend, *report_trend, *trend_class, *report_format);
    }
    const std::string* address = &client->address;
    std::unique_ptr<v1::Coordinator::Stub>& stub = client->stub;
    std::vector<std::string> ids = *report_runs;
    if (!report_run->empty()) ids = {*report_run};
    if (ids.empty())
      return controlplane::ErrorExit(
          "report needs --run ID or --runs ID,ID,... (see `nodeprobe runs`)");
    std::vector<v1::StageRun> fetched_runs;
    for (const std::string& id : ids) {
      absl::StatusOr<v1::StageRun> fetched =
          coordinator::FetchRun(stub.get(), id, absl::Now() + absl::Seconds(60));
      if (!fetched.ok()) return RpcErrorExit(fetched.status(), *address);
      fetched_runs.push_back(*std::move(fetched));
    }
    PrintRecord(fetched_runs, *report_format);
    return controlplane::kExitOk;
  };
}

}  // namespace

std::vector<std::function<int()>> AddControlCommands(CLI::App& app) {
  return {AddCoordinatorCommand(app), agent::AddAgentCommand(app, platform::kSelfExe),
          AddStatusCommand(app), AddRunsCommand(app), AddReportCommand(app)};
}

}  // namespace nodeprobe::cli
