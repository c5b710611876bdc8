#include "cli/run_command.h"

#include <google/protobuf/struct.pb.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "cli/json_output.h"
#include "cli/junit_output.h"
#include "cli/probe_argument_flags.h"
#include "cli/run_rendering.h"
#include "cli/single_node_soak.h"
#include "cli/table_renderer.h"
#include "cli/textfile_output.h"
#include "controlplane/environment.h"
#include "controlplane/exit_codes.h"
#include "platform/netns.h"
#include "probes/builtin_probes.h"
#include "probes/framework/finding_codes.h"
#include "probes/framework/profile_keys.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "tasks/host_roots.h"
#include "tasks/task_launcher.h"

namespace nodeprobe::cli {
std::vector<Probe*> PreflightProbes(const ProbeRegistry& registry, bool active) {
  std::vector<Probe*> out;
  for (Probe* p : registry.ForStage(v1::PREFLIGHT)) {
    if (active || !p->intrusive()) out.push_back(p);
  }
  if (!active) return out;
  for (const char* name : kActiveProbes) {
    if (Probe* p = registry.Find(name)) out.push_back(p);
  }
  return out;
}

namespace {

// The probes `options` asks for in `stage` (its --probe names, or the
// stage's own), each argument given read by one of them; INVALID_ARGUMENT
// naming the probe or flag that does not fit.
absl::StatusOr<std::vector<Probe*>> ChosenProbes(const ProbeRegistry& registry, v1::Stage stage,
                                                 const RunOptions& options) {
  std::vector<Probe*> probes;
  if (options.probes.empty()) {
    probes = registry.ForStage(stage);
    if (stage == v1::PREFLIGHT) probes = PreflightProbes(registry, options.active);
  } else {
    for (const std::string& name : options.probes) {
      Probe* p = registry.Find(name);
      if (p == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "unknown probe '", name, "' (valid: ", absl::StrJoin(registry.Names(), ", "), ")"));
      }
      // A pre-flight runs from inside the job: only its own probes (and the
      // --active ones) belong there, never a node's intrusive checks.
      if (stage == v1::PREFLIGHT) {
        const std::vector<Probe*> allowed = PreflightProbes(registry, true);
        if (std::find(allowed.begin(), allowed.end(), p) == allowed.end()) {
          std::vector<std::string> names;
          for (const Probe* a : allowed) names.emplace_back(a->name());
          return absl::InvalidArgumentError(
              absl::StrCat("probe '", name, "' does not run in a pre-flight (its probes: ",
                           absl::StrJoin(names, ", "), ")"));
        }
      }
      probes.push_back(p);
    }
  }

  const std::string unread = CheckArgumentsFitProbes(
      options.arguments, probes, registry,
      stage == v1::PREFLIGHT && !options.active
          ? "a pre-flight runs its intrusive probes with --active only: add --active "
            "(`nodeprobe preflight --active`)"
          : "");
  if (!unread.empty()) return absl::InvalidArgumentError(unread);
  return probes;
}

}  // namespace

absl::StatusOr<v1::StageReport> RunStageHere(const RunOptions& options) {
  ProbeRegistry registry = BuiltinProbes();
  v1::Stage stage = StageFromName(options.stage);
  if (stage == v1::STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown stage '", options.stage,
        "' (valid: single-node, preflight, two-node, cluster, congestion, failure, workload)"));
  }
  absl::StatusOr<std::vector<Probe*>> chosen = ChosenProbes(registry, stage, options);
  if (!chosen.ok()) return chosen.status();
  const std::vector<Probe*>& probes = *chosen;

  if (!options.netns.empty()) {
    absl::Status s = platform::EnterNetns(options.netns);
    if (!s.ok()) return absl::InvalidArgumentError(s.message());
  }

  v1::Task task;
  task.set_task_id("cli");
  if (!options.profile_path.empty()) {
    absl::StatusOr<v1::AcceptanceProfile> profile = ReadAcceptanceProfile(options.profile_path);
    if (!profile.ok()) return absl::InvalidArgumentError(profile.status().message());
    *task.mutable_profile() = *std::move(profile);
  }
  v1::RunProbes* rp = task.mutable_run_probes();
  rp->set_stage(stage);
  for (Probe* p : probes) rp->add_probes(std::string(p->name()));
  rp->set_node_name(options.node_name.empty() ? controlplane::HostName() : options.node_name);
  *rp->mutable_host() = tasks::ToHostRoots(options.host);
  rp->set_force(options.force);
  rp->set_sweep(options.sweep);
  rp->mutable_arguments()->insert(options.arguments.begin(), options.arguments.end());
  // --active is the job's own request: its node is busy with the job itself.
  if (options.active) rp->set_force(true);

  // The probes run in a worker process, so `--timeout` holds even when a
  // probe is stuck inside one read: the worker is killed, and what it had
  // finished is kept.
  const bool show_progress = !options.quiet && isatty(STDERR_FILENO);
  int index = 0;
  v1::TaskResult done = tasks::RunTask(
      platform::kSelfExe, task, absl::Now() + absl::Seconds(options.timeout_s),
      [&](const v1::TaskEvent& ev) {
        if (show_progress && ev.has_started()) {
          std::cerr << "[" << ++index << "/" << probes.size() << "] " << ev.started() << "\n";
        }
      });
  return done.report();
}

int RunCommand(const RunOptions& options) {
  absl::StatusOr<v1::StageReport> ran =
      options.soak_s > 0 ? RunSingleNodeSoak(options) : RunStageHere(options);
  if (!ran.ok()) return controlplane::StatusExit(ran.status());
  const v1::StageReport& report = *ran;
  if (options.on_report) options.on_report(report);

  if (!options.textfile_dir.empty()) {
    absl::Status written = WriteTextfile(options.textfile_dir, report);
    if (!written.ok()) {
      std::cerr << "nodeprobe: error: " << written.message() << "\n";
      return controlplane::kExitCouldNotRun;
    }
  }
  if (options.format == "json") {
    absl::StatusOr<std::string> json = ToJson(report);
    if (!json.ok()) {
      std::cerr << "nodeprobe: error: " << json.status().message() << "\n";
      return controlplane::kExitCouldNotRun;
    }
    std::cout << *json;
  } else if (options.format == "junit") {
    std::cout << JunitReport(report);
  } else if (options.format == "md") {
    // The Markdown record of a run, this node's report its only part.
    v1::StageRun run;
    run.set_run_id(absl::StrCat("single-node-", report.node()));
    run.set_stage(report.stage());
    run.add_nodes(report.node());
    run.set_state("done");
    run.set_verdict(report.verdict());
    *run.add_node_reports() = report;
    std::cout << MarkdownRun(run, /*with_gate=*/false);  // one node is no acceptance record
  } else if (!options.quiet) {
    std::cout << RenderStageTable(report, controlplane::StdoutWantsColor());
  }
  return controlplane::ExitCodeForVerdict(report.verdict());
}

absl::StatusOr<v1::AcceptanceProfile> ReadAcceptanceProfile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadProfileFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<Profile> parsed = ParseProfile(*text, path);
  if (!parsed.ok()) return parsed.status();
  for (const std::string& w : parsed->warnings) std::cerr << "nodeprobe: warning: " << w << "\n";
  v1::AcceptanceProfile profile;
  profile.set_source(path);
  profile.set_yaml(*std::move(text));
  return profile;
}

int ListFindingsCommand(const std::string& format) {
  v1::FindingCatalog catalog;
  for (const FindingCode& c : FindingCodes()) {
    v1::FindingDescription* d = catalog.add_codes();
    d->set_code(c.code);
    d->set_meaning(c.meaning);
    d->set_severity(c.severity);
    d->set_severity_rule(c.severity_rule);
    d->set_remediation(c.remediation);
    d->set_owner(c.owner);
  }
  if (format == "json") {
    absl::StatusOr<std::string> json = ToJson(catalog);
    if (!json.ok()) return controlplane::kExitCouldNotRun;
    std::cout << *json;
    return controlplane::kExitOk;
  }
  // One code a line, tab-separated: code, severity, owner, meaning, fix.
  for (const v1::FindingDescription& d : catalog.codes()) {
    std::cout << d.code() << "\t"
              << (d.severity() == kVaries ? "varies" : VerdictName(d.severity())) << "\t"
              << d.owner() << "\t" << d.meaning() << "\t" << d.remediation() << "\n";
  }
  return controlplane::kExitOk;
}

int ProfileCommand(bool explain, const std::string& check_path, const std::string& format) {
  if (!check_path.empty()) {
    absl::StatusOr<Profile> profile = LoadProfile(check_path);
    if (!profile.ok()) return controlplane::StatusExit(profile.status());
    // Valid, but said: an exception already past, one a year ahead.
    for (const std::string& w : profile->warnings) {
      std::cerr << "nodeprobe: warning: " << w << "\n";
    }
    std::cout << check_path << ": a valid profile"
              << (profile->warnings.empty() ? ""
                                            : absl::StrCat(" (", profile->warnings.size(),
                                                           " warning(s) above)"))
              << "\n";
    if (!explain) return controlplane::kExitOk;
  }
  if (!explain) {
    return controlplane::ErrorExit(
        "nodeprobe profile: give --explain (every key) or --check FILE (validate a profile)");
  }
  if (format == "json") {
    // A list of {key, type, absent, doc}: protobuf's JSON of a ListValue.
    google::protobuf::ListValue keys;
    for (const ProfileKey& k : ProfileKeys()) {
      google::protobuf::Struct* s = keys.add_values()->mutable_struct_value();
      (*s->mutable_fields())["key"].set_string_value(k.key);
      (*s->mutable_fields())["type"].set_string_value(k.type);
      (*s->mutable_fields())["absent"].set_string_value(k.absent);
      (*s->mutable_fields())["doc"].set_string_value(k.doc);
    }
    absl::StatusOr<std::string> json = ToJson(keys);
    if (!json.ok()) return controlplane::kExitCouldNotRun;
    std::cout << *json;
    return controlplane::kExitOk;
  }
  // One key a line, tab-separated: key, type, without it, what it does.
  for (const ProfileKey& k : ProfileKeys()) {
    std::cout << k.key << "\t" << k.type << "\t" << k.absent << "\t" << k.doc << "\n";
  }
  return controlplane::kExitOk;
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
      return controlplane::kExitCouldNotRun;
    }
    std::cout << *json;
    return controlplane::kExitOk;
  }
  for (const v1::ProbeDescription& d : catalog.probes()) {
    std::vector<std::string> stages;
    for (int s : d.stages()) stages.emplace_back(StageName(static_cast<v1::Stage>(s)));
    std::cout << d.name() << "\t" << absl::StrJoin(stages, ",") << "\t"
              << d.purpose() << "\n";
  }
  return controlplane::kExitOk;
}

}  // namespace nodeprobe::cli
