#include "cli/baseline_command.h"

#include <iostream>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/control_commands.h"
#include "cli/json_output.h"
#include "cli/safe_text.h"
#include "controlplane/command_line.h"
#include "controlplane/exit_codes.h"
#include "controlplane/grpc_status.h"
#include "coordinator/run_pages.h"

namespace nodeprobe::cli {
namespace {

std::string Day(int64_t seconds) {
  return absl::FormatTime("%Y-%m-%d", absl::FromUnixSeconds(seconds), absl::UTCTimeZone());
}

struct ShowOptions {
  std::string coordinator;
  controlplane::TlsFiles tls;
  std::string filter;
  size_t min_runs = 5;
  std::string format = "table";
};

int Show(const ShowOptions& o) {
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o.coordinator, o.tls);
  if (!client.ok()) return controlplane::StatusExit(client.status());
  int stored = 0;
  absl::StatusOr<std::vector<v1::StageRun>> runs = FetchAcceptedRuns(*client, &stored);
  if (!runs.ok()) return RpcErrorExit(runs.status(), client->address);
  const std::map<std::string, baseline::ClassBaselines> classes = baseline::BaselinesOf(*runs);
  if (o.format == "json") {
    v1::ClassBaselines out = BaselinesMessage(classes, o.filter, o.min_runs);
    out.set_accepted_runs(static_cast<uint32_t>(runs->size()));
    out.set_stored_runs(static_cast<uint32_t>(stored));
    absl::StatusOr<std::string> json = ToJson(out);
    if (!json.ok()) return controlplane::StatusExit(json.status());
    std::cout << *json << "\n";
    return controlplane::kExitOk;
  }
  std::cout << absl::StrFormat("%d accepted runs of %d stored\n", runs->size(), stored)
            << RenderBaselines(classes, o.filter, o.min_runs);
  return controlplane::kExitOk;
}

}  // namespace

absl::StatusOr<std::vector<v1::StageRun>> FetchAcceptedRuns(CoordinatorClient& client,
                                                            int* stored) {
  v1::ListRunsResponse list;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Status s = client.stub->ListRuns(&ctx, v1::ListRunsRequest(), &list);
    if (!s.ok()) return controlplane::FromGrpcStatus(s);
  }
  *stored = list.runs_size();
  std::vector<v1::StageRun> runs;
  for (const v1::StageRun& summary : list.runs()) {
    if (!baseline::Accepted(summary)) continue;
    absl::StatusOr<v1::StageRun> run =
        coordinator::FetchRun(client.stub.get(), summary.run_id(), absl::Now() + absl::Seconds(60));
    if (!run.ok()) return run.status();
    runs.push_back(*std::move(run));
  }
  return runs;
}

std::string RenderTrend(const v1::NodeTrend& t) {
  std::string out =
      absl::StrCat(EscapeControls(t.node()), ": ", t.runs(), " accepted runs",
                   t.node_class().empty() ? "" : ", class ", EscapeControls(t.node_class()), "\n");
  if (t.figures_size() == 0) absl::StrAppend(&out, "no figure of this node in an accepted run\n");
  for (const v1::FigureTrend& f : t.figures()) {
    absl::StrAppend(
        &out, "\n", EscapeControls(f.figure()),
        f.baseline_runs() == 0
            ? " (no baseline)\n"
            : absl::StrFormat(" (class median %.4g, spread %.3g, n %d)\n", f.baseline_median(),
                              f.baseline_spread(), f.baseline_runs()));
    for (const v1::FigureTrend::Point& p : f.points()) {
      absl::StrAppend(&out, absl::StrFormat("  %s  %-24s %10.4g", Day(p.seconds()),
                                            EscapeControls(p.run_id()), p.value()));
      if (f.baseline_median() > 0) {
        absl::StrAppend(&out,
                        absl::StrFormat("  %5.3f of the median", p.value() / f.baseline_median()));
      }
      absl::StrAppend(&out, "\n");
    }
  }
  return out;
}

v1::ClassBaselines BaselinesMessage(const std::map<std::string, baseline::ClassBaselines>& classes,
                                    const std::string& filter, size_t min_runs) {
  v1::ClassBaselines out;
  for (const auto& [key, c] : classes) {
    if (key.find(filter) == std::string::npos) continue;
    v1::ClassBaselines::Class* cls = out.add_classes();
    cls->set_key(key);
    for (const auto& [name, value] : c.node_class.parts) {
      v1::ClassBaselines::Part* p = cls->add_parts();
      p->set_name(name);
      p->set_value(value);
    }
    for (const auto& [name, b] : c.figures) {
      v1::ClassBaselines::Figure* f = cls->add_figures();
      f->set_figure(name);
      auto hib = c.higher_is_better.find(name);
      f->set_higher_is_better(hib == c.higher_is_better.end() || hib->second);
      f->set_median(b.median);
      f->set_spread(b.spread);
      f->set_runs(static_cast<uint32_t>(b.n));
      f->set_first_seconds(b.first);
      f->set_last_seconds(b.last);
      f->set_enough_runs(b.n >= min_runs);
    }
  }
  return out;
}

std::string RenderBaselines(const std::map<std::string, baseline::ClassBaselines>& classes,
                            const std::string& filter, size_t min_runs) {
  std::string out;
  for (const auto& [key, c] : classes) {
    if (key.find(filter) == std::string::npos) continue;
    absl::StrAppend(&out, "\nclass ", key, "\n");
    for (const auto& [name, b] : c.figures) {
      absl::StrAppend(
          &out, b.n < min_runs
                    ? absl::StrFormat("  %-44s not enough runs (n %d of %d)\n", name, b.n, min_runs)
                    : absl::StrFormat("  %-44s median %.4g, spread %.3g, n %d, %s .. %s\n", name,
                                      b.median, b.spread, b.n, Day(b.first), Day(b.last)));
    }
  }
  return out.empty() ? "no accepted run matches\n" : out;
}

std::function<int()> AddBaselineCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "baseline",
      "What each node class measured in accepted runs: `baseline show` (a class is its GPU, NIC "
      "board and firmware, driver, CUDA, NCCL and profile; a version change starts a new one)");
  cmd->require_subcommand(1);
  auto o = std::make_shared<ShowOptions>();
  CLI::App* show = cmd->add_subcommand(
      "show", "Per class and figure: median, robust spread, runs and their span");
  controlplane::AddControlFlags(show, &o->coordinator, &o->tls);
  show->add_option("--class", o->filter, "Only classes whose key contains this text");
  show->add_option("--min-runs", o->min_runs, "Runs a baseline needs to be judged against")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  show->add_option("--format", o->format, "table, or json (for dashboards)")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  show->footer("Exit codes: 0 shown; 2 usage; 3 the coordinator could not be reached.");
  return [show, o]() -> int {
    if (!*show) return -1;
    return Show(*o);
  };
}

}  // namespace nodeprobe::cli
