#include "cli/mtu_command.h"

#include <CLI/CLI.hpp>
#include <iostream>

#include "absl//strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/json_output.h"
#include "cli/safe_text.h"
#include "cli/table_renderer.h"
#include "controlplane/command_line.h"
#include "controlplane/exit_codes.h"
#include "controlplane/signals.h"
#include "platform/netns.h"
#include "platform/socket.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/mtu/mtu_probe.h"
#include "probes/mtu/path_mtu.h"

namespace nodeprobe::cli {
namespace {

struct MtuOptions {
  std::string bind;
  int port = mtu::kDefaultMtuPort;
  std::string peer;
  std::string netns;
  double timeout_s = 60;
  std::string format = "table";
};

int ServeMtu(const MtuOptions& o) {
  if (!o.netns.empty()) {
    absl::Status s = platform::EnterNetns(o.netns);
    if (!s.ok()) {
      std::cerr << "nodeprobe: error: " << s.message() << "\n";
      return controlplane::kExitUsage;
    }
  }
  auto responder = mtu::MtuResponder::Start(o.bind, static_cast<uint16_t>(o.port));
  if (!responder.ok()) {
    std::cerr << "nodeprobe: error: cannot listen: " << responder.status().message()
              << " (choose another --port)\n";
    return controlplane::kExitCouldNotRun;
  }
  std::cout << "nodeprobe mtu responder listening on udp "
            << (o.bind.empty() ? "*" : o.bind) << ":" << (*responder)->port() << std::endl;
  controlplane::StopOnSignal on_signal([&] { (*responder)->Stop(); });
  (*responder)->Serve();
  return controlplane::kExitOk;
}

std::string RenderMtu(const v1::ProbeResult& r) {
  std::string out;
  const v1::MtuReport& m = r.mtu();
  if (r.has_mtu()) {
    absl::StrAppend(&out, " path MTU to ", m.peer(), " from ", m.egress_interface(), " (",
                    m.source_ip(), ")\n");
  }
  for (const v1::PathMtu& p : m.paths()) {
    absl::StrAppend(&out, "  ", p.direction(), ": path ", p.path_mtu(), ", interface ",
                    p.iface_mtu(),
                    p.limiting_hop().empty() ? "" : absl::StrCat(", limited at ", p.limiting_hop()),
                    p.blackhole() ? ", black hole above it" : "", "\n");
  }
  if (m.peer_iface_mtu()) absl::StrAppend(&out, "  peer interface MTU ", m.peer_iface_mtu(), "\n");
  return TerminalSafe(out + RenderVerdictAndFindings(r));
}

int ProbeMtu(const MtuOptions& o) {
  absl::StatusOr<platform::HostPort> peer = platform::ParseHostPort(o.peer, mtu::kDefaultMtuPort);
  if (!peer.ok()) {
    std::cerr << "nodeprobe: error: --peer: " << peer.status().message() << "\n";
    return controlplane::kExitUsage;
  }
  if (!o.netns.empty()) {
    absl::Status s = platform::EnterNetns(o.netns);
    if (!s.ok()) {
      std::cerr << "nodeprobe: error: " << s.message() << "\n";
      return controlplane::kExitUsage;
    }
  }
  mtu::PathProbeOptions po;
  po.peer_ip = peer->host;
  po.port = peer->port;
  po.deadline = absl::Now() + absl::Seconds(o.timeout_s);
  v1::ProbeResult result = ProbePath(po);
  FinalizeResult(Profile(), &result);
  if (!PrintAs(o.format, result, [&] { return RenderMtu(result); }))
    return controlplane::kExitCouldNotRun;
  return controlplane::ExitCodeForVerdict(result.verdict());
}

}  // namespace

std::function<int()> AddMtuCommand(CLI::App& app) {
  auto o = std::make_shared<MtuOptions>();
  CLI::App* mtu_cmd = app.add_subcommand(
      "mtu", "Measure the path MTU to a peer from the workload's namespace.");
  mtu_cmd->require_subcommand(1);
  CLI::App* serve = mtu_cmd->add_subcommand(
      "serve", "Answer path-MTU probes until SIGTERM (UDP).");
  serve->add_option("--bind", o->bind, "IPv4 address to listen on (default: all)");
  serve->add_option("--port", o->port, "UDP port")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  serve->add_option("--netns", o->netns, "Serve from this network namespace (name, PID or path)");
  CLI::App* probe = mtu_cmd->add_subcommand(
      "probe", "Measure the path MTU to PEER in both directions, DF set.");
  probe->add_option("--peer", o->peer, "HOST[:PORT] (IPv4) running `nodeprobe mtu serve`")
      ->required();
  probe->add_option("--netns", o->netns,
                    "Probe from this network namespace (name, PID or path), e.g. a pod's");
  probe->add_option("--timeout", o->timeout_s, "Deadline in seconds")
      ->check(controlplane::SecondsCheck())
      ->capture_default_str();
  probe->add_option("--format", o->format, "table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  return [=]() -> int {
    if (serve->parsed()) return ServeMtu(*o);
    if (probe->parsed()) return ProbeMtu(*o);
    return -1;
  };
}

}  // namespace nodeprobe::cli
