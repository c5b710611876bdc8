// File: run_command.cc
#include "cli/run_command.h"

#include <unistd.h>

#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "cli/environment.h"
#include "cli/exit_codes.h"
#include "cli/json_output.h"
#include "cli/table_renderer.h"
#include "cli/textfile_output.h"
#include "platform/netns.h"
#include "probes/builtin_probes.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"

namespace nodeprobe::cli {
namespace {

int UsageError(const std::string& message) {
  std::cerr << "nodeprobe: error: " << message << "\n";
  return kExitUsage;
}

}  // namespace

int RunCommand(const RunOptions& options) {
  ProbeRegistry registry = BuiltinProbes();
  v1::Stage stage = StageFromName(options.stage);
  if (stage == v1::STAGE_UNSPECIFIED) {
    return UsageError(absl::StrCat("unknown stage '", options.stage,
                                   "' (valid: single-node, two-node, cluster)"));
  }

  std::vector<Probe*> probes;
  if (options.probes.empty()) {
    probes = registry.ForStage(stage);
  } else {
    for (const std::string& name : options.probes) {
      Probe* p = registry.Find(name);
      if (p == nullptr) {
        return UsageError(absl::StrCat("unknown probe '", name, "' (valid: ",
                                       absl::StrJoin(registry.Names(), ", "),
                                       ")"));
      }
      probes.push_back(p);
    }
  }

  if (!options.netns.empty()) {
    absl::Status s = platform::EnterNetns(options.netns);
    if (!s.ok()) return UsageError(std::string(s.message()));
  }

  Profile profile;
  if (!options.profile_path.empty()) {
    absl::StatusOr<Profile> loaded = LoadProfile(options.profile_path);
    if (!loaded.ok()) return UsageError(std::string(loaded.status().message()));
    profile = *std::move(loaded);
  }

  ProbeContext ctx;
  ctx.host = options.host;
  ctx.profile = &profile;
  ctx.node_name = options.node_name.empty() ? HostName() : options.node_name;
  ctx.deadline = absl::Now() + absl::Seconds(options.timeout_s);

  const bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  v1::StageReport report = RunProbes(
      stage, probes, ctx, [&](int i, int n, std::string_view name) {
        if (show_progress) std::cerr << "[" << i << "/" << n << "] " << name << "\n";
      });

  if (!options.textfile_dir.empty()) {
    absl::Status written = WriteTextfile(options.textfile_dir, report);
    if (!written.ok()) {
      std::cerr << "nodeprobe: error: " << written.message() << "\n";
      return kExitCouldNotRun;
    }
  }
  if (options.format == "json") {
    absl::StatusOr<std::string> json = ToJson(report);
    if (!json.ok()) {
      std::cerr << "nodeprobe: error: " << json.status().message() << "\n";
      return kExitCouldNotRun;
    }
    std::cout << *json;
  } else if (!options.quiet) {
    std::cout << RenderStageTable(report, StdoutWantsColor());
  }
  return ExitCodeForVerdict(report.verdict());
}

int ListProbesCommand(const std::string& format) {
  ProbeRegistry registry = BuiltinProbes();
  v1::ProbeCatalog catalog;
  for (Probe* p : registry.List()) {
    v1::ProbeDescription* d = catalog.add_probes();
    d->set_name(std::string(p->name()));
    d->set_purpose(std::string(p->purpose()));
    for (v1::Stage s : p->stages()) d->add_stages(s);
  }
  if (format == "json") {
    absl::StatusOr<std::string> json = ToJson(catalog);
    if (!json.ok()) {
      std::cerr << "nodeprobe: error: " << json.status().message() << "\n";
      return kExitCouldNotRun;
    }
    std::cout << *json;
    return kExitOk;
  }
  for (const v1::ProbeDescription& d : catalog.probes()) {
    std::vector<std::string> stages;
    for (int s : d.stages()) stages.emplace_back(StageName(static_cast<v1::Stage>(s)));
    std::cout << d.name() << "\t" << absl::StrJoin(stages, ",") << "\t"
              << d.purpose() << "\n";
  }
  return kExitOk;
}

}  // namespace nodeprobe::cli
