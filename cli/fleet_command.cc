#include "cli/fleet_command.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/control_commands.h"
#include "cli/json_output.h"
#include "cli/log_input.h"
#include "controlplane/credentials.h"
#include "controlplane/exit_codes.h"
#include "coordinator/version_matrix.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

// "3d 4h", "2h 5m", "40s".
std::string Age(absl::Duration d) {
  const int64_t s = absl::ToInt64Seconds(d);
  if (s < 0) return "0s";
  if (s >= 86400) return absl::StrCat(s / 86400, "d ", (s % 86400) / 3600, "h");
  if (s >= 3600) return absl::StrCat(s / 3600, "h ", (s % 3600) / 60, "m");
  if (s >= 60) return absl::StrCat(s / 60, "m");
  return absl::StrCat(s, "s");
}

void AddRows(const std::vector<coordinator::ComponentRow>& rows,
             google::protobuf::RepeatedPtrField<v1::VersionRow>* into) {
  for (const coordinator::ComponentRow& row : rows) {
    v1::VersionRow* r = into->Add();
    r->set_component(row.component);
    r->set_majority(row.majority);
    r->set_pinned(row.pinned);
    for (const auto& [node, v] : row.versions) (*r->mutable_versions())[node] = v;
    for (const std::string& d : row.drifted) r->add_drifted(d);
    for (const std::string& d : row.off_pin) r->add_off_pin(d);
  }
}

// "versions across 3 nodes: 1 of 9 components drift", then a line per row
// with the nodes off the majority.
std::string MatrixLines(const google::protobuf::RepeatedPtrField<v1::VersionRow>& rows, int nodes,
                        const std::string& title, const std::string& what) {
  int drifted = 0;
  for (const v1::VersionRow& r : rows) drifted += r.drifted_size() > 0;
  std::string out = absl::StrCat("\n", title, " across ", nodes, " nodes: ", drifted, " of ",
                                 rows.size(), " ", what, " drift\n");
  for (const v1::VersionRow& r : rows) {
    std::string line = absl::StrFormat("  %-28s %-24s", r.component(),
                                       r.majority().empty() ? "(none)" : r.majority());
    if (!r.pinned().empty()) absl::StrAppend(&line, " pin ", r.pinned());
    if (r.drifted_size() > 0) {
      std::vector<std::string> off;
      for (const std::string& node : r.drifted()) {
        auto v = r.versions().find(node);
        const std::string found =
            v == r.versions().end() || v->second.empty() ? "not reported" : v->second;
        off.push_back(absl::StrCat(node, " ", found));
      }
      absl::StrAppend(&line, "  DRIFT: ", absl::StrJoin(off, ", "));
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace

v1::FleetView BuildFleetView(const v1::ListNodesResponse& nodes,
                             const std::map<std::string, std::string>& pins) {
  v1::FleetView view;
  std::vector<coordinator::NodeComponents> fleet, config;
  for (const v1::NodeInfo& n : nodes.nodes()) {
    *view.add_nodes() = n;
    // The node's last full inventory; else what it registered with.
    const auto& inv =
        n.last_inventory_size() > 0 ? n.last_inventory() : n.registration().inventory();
    fleet.push_back({n.name(), {inv.begin(), inv.end()}});
    config.push_back({n.name(), coordinator::SettingsAsComponents(n.last_config())});
  }
  AddRows(coordinator::VersionMatrix(fleet, pins), view.mutable_versions());
  AddRows(coordinator::VersionMatrix(config), view.mutable_config());
  return view;
}

std::string RenderFleet(const v1::FleetView& view, absl::Time now) {
  std::string out = absl::StrFormat("%-20s %-10s %-10s %-8s %-9s %s\n", "node", "agent",
                                    "connected", "last", "age", "run");
  for (const v1::NodeInfo& n : view.nodes()) {
    const bool reported = !n.last_run_id().empty();
    absl::StrAppend(
        &out, absl::StrFormat(
                  "%-20s %-10s %-10s %-8s %-9s %s\n", n.name(), n.registration().agent_version(),
                  n.connected() ? (n.busy() ? "yes, busy" : "yes") : "no",
                  reported ? VerdictName(n.last_verdict()) : "-",
                  reported ? Age(now - absl::FromUnixSeconds(n.last_report().seconds())) : "-",
                  reported ? absl::StrCat(n.last_run_id(), " (", StageName(n.last_stage()), ")")
                           : "no run yet"));
  }
  absl::StrAppend(&out, MatrixLines(view.versions(), view.nodes_size(), "versions", "components"));
  absl::StrAppend(&out, MatrixLines(view.config(), view.nodes_size(), "configuration", "settings"));
  return out;
}

int FleetExitCode(const v1::FleetView& view) {
  v1::Verdict worst = v1::PASS;
  for (const v1::NodeInfo& n : view.nodes()) {
    if (!n.last_run_id().empty()) worst = WorseVerdict(worst, n.last_verdict());
  }
  for (const v1::VersionRow& r : view.versions()) {
    if (r.off_pin_size() > 0) worst = v1::FAIL;
  }
  return controlplane::ExitCodeForVerdict(worst);
}

std::function<int()> AddFleetCommand(CLI::App& app) {
  struct Options {
    std::string coordinator;
    controlplane::TlsFiles tls;
    std::string format = "table";
    std::string profile;
  };
  auto o = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "fleet",
      "Every agent with its last verdict and age, and the version and configuration "
      "(RoCE, host settings) matrices across the fleet with drift (exit 1: a node's last verdict "
      "FAIL or a version off the "
      "profile's pin; 3: a last verdict ERROR).");
  controlplane::AddControlFlags(cmd, &o->coordinator, &o->tls);
  cmd->add_option("--format", o->format, "table or json (protobuf JSON)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--profile", o->profile,
                  "Acceptance profile whose versions: pins the matrix is checked against");
  return [cmd, o]() -> int {
    if (!cmd->parsed()) return -1;
    absl::StatusOr<Profile> profile = LoadProfileWarning(o->profile);
    if (!profile.ok()) return controlplane::StatusExit(profile.status());
    const std::map<std::string, std::string>& pins = profile->versions;
    absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o->coordinator, o->tls);
    if (!client.ok()) return controlplane::StatusExit(client.status());
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::ListNodesResponse resp;
    grpc::Status s = client->stub->ListNodes(&ctx, v1::ListNodesRequest(), &resp);
    if (!s.ok()) return RpcErrorExit(s, client->address);
    const v1::FleetView view = BuildFleetView(resp, pins);
    if (o->format == "json") {
      absl::StatusOr<std::string> json = ToJson(view);
      if (!json.ok())
        return controlplane::ErrorExit(std::string(json.status().message()),
                                       controlplane::kExitCouldNotRun);
      std::cout << *json;
    } else {
      std::cout << RenderFleet(view, absl::Now());
    }
    return FleetExitCode(view);
  };
}

}  // namespace nodeprobe::cli
