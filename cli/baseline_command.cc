#include "cli/baseline_command.h"

#include <iostream>
#include <memory>

#include "CLI/CLI.hpp"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "cli/control_commands.h"
#include "controlplane/command_line.h"
#include "controlplane/exit_codes.h"
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
};

int Show(const ShowOptions& o) {
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o.coordinator, o.tls);
  if (!client.ok()) return controlplane::StatusExit(client.status());
  v1::ListRunsResponse list;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Status s = client->stub->ListRuns(&ctx, v1::ListRunsRequest(), &list);
    if (!s.ok()) return RpcErrorExit(s, client->address);
  }
  std::vector<v1::StageRun> runs;
  for (const v1::StageRun& summary : list.runs()) {
    if (!baseline::Accepted(summary)) continue;
    absl::StatusOr<v1::StageRun> run = coordinator::FetchRun(client->stub.get(), summary.run_id(),
                                                             absl::Now() + absl::Seconds(60));
    if (!run.ok()) return RpcErrorExit(run.status(), client->address);
    runs.push_back(*std::move(run));
  }
  std::cout << absl::StrFormat("%d accepted runs of %d stored\n", runs.size(), list.runs_size())
            << RenderBaselines(baseline::BaselinesOf(runs), o.filter, o.min_runs);
  return controlplane::kExitOk;
}

}  // namespace

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
  show->footer("Exit codes: 0 shown; 2 usage; 3 the coordinator could not be reached.");
  return [show, o]() -> int {
    if (!*show) return -1;
    return Show(*o);
  };
}

}  // namespace nodeprobe::cli
