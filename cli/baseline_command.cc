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
  absl::StatusOr<baseline::History> history = FetchHistory(*client, &stored);
  if (!history.ok()) return RpcErrorExit(history.status(), client->address);
  const baseline::Marks& marks = history->marks;
  const std::map<std::string, baseline::ClassBaselines> classes =
      baseline::BaselinesOf(history->runs, history->marks);
  if (o.format == "json") {
    v1::ClassBaselines out = BaselinesMessage(classes, o.filter, o.min_runs, marks);
    out.set_accepted_runs(static_cast<uint32_t>(history->runs.size()));
    out.set_stored_runs(static_cast<uint32_t>(stored));
    absl::StatusOr<std::string> json = ToJson(out);
    if (!json.ok()) return controlplane::StatusExit(json.status());
    std::cout << *json << "\n";
    return controlplane::kExitOk;
  }
  std::cout << absl::StrFormat("%d accepted runs of %d stored", history->runs.size(), stored)
            << (marks.forgotten.empty()
                    ? ""
                    : absl::StrFormat(", %d forgotten by baselines", marks.forgotten.size()))
            << "\n"
            << RenderBaselines(classes, o.filter, o.min_runs, marks);
  return controlplane::kExitOk;
}

// `baseline pin` and `baseline forget`: one call, its answer in one line.
struct MarkOptions {
  std::string coordinator;
  controlplane::TlsFiles tls;
  std::string run_id;
  std::string class_key;
};

int Mark(const MarkOptions& o, bool pin) {
  absl::StatusOr<CoordinatorClient> client = ConnectCoordinator(o.coordinator, o.tls);
  if (!client.ok()) return controlplane::StatusExit(client.status());
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
  v1::BaselineMarks answer;
  grpc::Status s;
  if (pin) {
    v1::PinBaselineRequest req;
    req.set_run_id(o.run_id);
    s = client->baselines->Pin(&ctx, req, &answer);
  } else {
    v1::ForgetBaselineRequest req;
    if (o.class_key.empty()) {
      req.set_run_id(o.run_id);
    } else {
      req.set_class_key(o.class_key);
    }
    s = client->baselines->Forget(&ctx, req, &answer);
  }
  if (s.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
    return controlplane::ErrorExit(
        absl::StrCat("coordinator ", client->address,
                     " keeps no baseline marks (older than `baseline pin`); upgrade it"),
        controlplane::kExitCouldNotRun);
  }
  if (!s.ok()) return RpcErrorExit(s, client->address);
  std::cout << EscapeControls(answer.message()) << "\n";
  return controlplane::kExitOk;
}

}  // namespace

absl::StatusOr<baseline::History> FetchHistory(CoordinatorClient& client, int* stored) {
  baseline::History out;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::BaselineMarks marks;
    grpc::Status s = client.baselines->Marks(&ctx, v1::BaselineMarksRequest(), &marks);
    // A coordinator older than the Baselines service keeps no marks.
    if (s.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
      marks.Clear();
    } else if (!s.ok()) {
      return controlplane::FromGrpcStatus(s);
    }
    out.marks = baseline::MarksOf(std::move(marks));
  }
  v1::ListRunsResponse list;
  {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Status s = client.stub->ListRuns(&ctx, v1::ListRunsRequest(), &list);
    if (!s.ok()) return controlplane::FromGrpcStatus(s);
  }
  *stored = list.runs_size();
  for (const v1::StageRun& summary : list.runs()) {
    if (!baseline::Accepted(summary)) continue;
    absl::StatusOr<v1::StageRun> run =
        coordinator::FetchRun(client.stub.get(), summary.run_id(), absl::Now() + absl::Seconds(60));
    if (!run.ok()) return run.status();
    out.runs.push_back(*std::move(run));
  }
  return out;
}

namespace {

// "  pinned at run R (runs up to DAY) by WHO\n": a pinned class's line.
std::string PinLine(const v1::BaselinePin& pin) {
  return absl::StrCat("  pinned at run ", EscapeControls(pin.run_id()), " (runs up to ",
                      Day(pin.until_seconds()), ") by ", EscapeControls(pin.by()), "\n");
}

// A trend's figure and its class's baseline, one line.
std::string FigureHeading(const v1::FigureTrend& f) {
  return absl::StrCat(
      EscapeControls(f.figure()),
      f.baseline_runs() == 0
          ? " (no baseline)\n"
          : absl::StrFormat(" (class median %.4g, spread %.3g, n %d)\n", f.baseline_median(),
                            f.baseline_spread(), f.baseline_runs()));
}

}  // namespace

std::string RenderTrend(const v1::NodeTrend& t) {
  std::string out =
      absl::StrCat(EscapeControls(t.node()), ": ", t.runs(), " accepted runs",
                   t.node_class().empty() ? "" : ", class ", EscapeControls(t.node_class()), "\n");
  if (t.figures_size() == 0) absl::StrAppend(&out, "no figure of this node in an accepted run\n");
  for (const v1::FigureTrend& f : t.figures()) {
    absl::StrAppend(&out, "\n", FigureHeading(f));
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

std::string RenderFleetTrend(const v1::FleetTrend& t) {
  std::string out;
  if (t.classes_size() == 0) return "no accepted run measured a figure\n";
  for (const v1::ClassTrend& c : t.classes()) {
    absl::StrAppend(&out, "class ", EscapeControls(c.key()), ": ", c.runs(), " accepted runs\n");
    for (const v1::FigureTrend& f : c.figures()) {
      absl::StrAppend(&out, "\n  ", FigureHeading(f));
      for (const v1::FigureTrend::Point& p : f.points()) {
        absl::StrAppend(&out, absl::StrFormat("    %s  %-24s %3d nodes  median %-10.4g low %-10.4g "
                                              "high %-10.4g",
                                              Day(p.seconds()), EscapeControls(p.run_id()),
                                              p.nodes(), p.value(), p.low(), p.high()));
        if (f.baseline_median() > 0) {
          absl::StrAppend(
              &out, absl::StrFormat("  %5.3f of the median", p.value() / f.baseline_median()));
        }
        absl::StrAppend(&out, "\n");
      }
    }
    absl::StrAppend(&out, "\n");
  }
  return out;
}

v1::ClassBaselines BaselinesMessage(const std::map<std::string, baseline::ClassBaselines>& classes,
                                    const std::string& filter, size_t min_runs,
                                    const baseline::Marks& marks) {
  v1::ClassBaselines out;
  for (const v1::ForgottenRun& f : marks.said.forgotten()) out.add_forgotten_runs(f.run_id());
  for (const auto& [key, c] : classes) {
    if (key.find(filter) == std::string::npos) continue;
    v1::ClassBaselines::Class* cls = out.add_classes();
    cls->set_key(key);
    if (const v1::BaselinePin* pin = marks.PinOf(key); pin != nullptr) {
      cls->set_pinned_run(pin->run_id());
      cls->set_pinned_until_seconds(pin->until_seconds());
      cls->set_pinned_by(pin->by());
    }
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
                            const std::string& filter, size_t min_runs,
                            const baseline::Marks& marks) {
  std::string out;
  for (const auto& [key, c] : classes) {
    if (key.find(filter) == std::string::npos) continue;
    absl::StrAppend(&out, "\nclass ", EscapeControls(key), "\n");
    if (const v1::BaselinePin* pin = marks.PinOf(key); pin != nullptr) {
      absl::StrAppend(&out, PinLine(*pin));
    }
    for (const auto& [name, b] : c.figures) {
      absl::StrAppend(
          &out, b.n < min_runs
                    ? absl::StrFormat("  %-44s not enough runs (n %d of %d)\n", name, b.n, min_runs)
                    : absl::StrFormat("  %-44s median %.4g, spread %.3g, n %d, %s .. %s\n", name,
                                      b.median, b.spread, b.n, Day(b.first), Day(b.last)));
    }
  }
  // A pin whose class has no figure yet (a run without pairs or
  // collectives) is still the operator's word: shown, not dropped.
  for (const v1::BaselinePin& pin : marks.said.pins()) {
    if (classes.count(pin.class_key()) || pin.class_key().find(filter) == std::string::npos) {
      continue;
    }
    absl::StrAppend(&out, "\nclass ", EscapeControls(pin.class_key()), "\n", PinLine(pin),
                    "  no figure measured yet\n");
  }
  return out.empty() ? "no accepted run matches\n" : out;
}

namespace {

CLI::App* AddShow(CLI::App* cmd, ShowOptions* o) {
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
  return show;
}

CLI::App* AddPin(CLI::App* cmd, MarkOptions* o) {
  CLI::App* pin = cmd->add_subcommand(
      "pin",
      "Freeze the baselines of a run's node classes at the runs accepted up to it (the campaign "
      "that was accepted): later runs are judged against it and do not move it");
  controlplane::AddControlFlags(pin, &o->coordinator, &o->tls);
  pin->add_option("--from-run", o->run_id, "An accepted run (done, PASS or WARN)")
      ->required()
      ->check(controlplane::NameCheck());
  pin->footer(
      "Exit codes: 0 pinned; 2 usage, an unknown run, or a run that was not accepted; 3 the "
      "coordinator could not be reached or refused (an operator's certificate is needed).");
  return pin;
}

CLI::App* AddForget(CLI::App* cmd, MarkOptions* o) {
  CLI::App* forget = cmd->add_subcommand(
      "forget",
      "Take a run out of every baseline (it stays stored), or undo a class's pin (--class)");
  controlplane::AddControlFlags(forget, &o->coordinator, &o->tls);
  auto* run = forget->add_option("--run", o->run_id, "The run no baseline counts any more")
                  ->check(controlplane::NameCheck());
  auto* cls = forget->add_option("--class", o->class_key,
                                 "A pinned class's key (as `baseline show` prints it)");
  run->excludes(cls);
  forget->footer(
      "Exit codes: 0 done; 2 usage, an unknown run or a class without a pin; 3 the coordinator "
      "could not be reached or refused (an operator's certificate is needed).");
  return forget;
}

}  // namespace

std::function<int()> AddBaselineCommand(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "baseline",
      "What each node class measured in accepted runs: `baseline show` (a class is its GPU, NIC "
      "board and firmware, driver, CUDA, NCCL and profile; a version change starts a new one), "
      "`baseline pin --from-run ID`, `baseline forget --run ID | --class KEY`");
  cmd->require_subcommand(1);
  auto show_opts = std::make_shared<ShowOptions>();
  auto pin_opts = std::make_shared<MarkOptions>();
  auto forget_opts = std::make_shared<MarkOptions>();
  CLI::App* show = AddShow(cmd, show_opts.get());
  CLI::App* pin = AddPin(cmd, pin_opts.get());
  CLI::App* forget = AddForget(cmd, forget_opts.get());
  return [=]() -> int {
    if (*show) return Show(*show_opts);
    if (*pin) return Mark(*pin_opts, true);
    if (*forget) {
      if (forget_opts->run_id.empty() && forget_opts->class_key.empty()) {
        return controlplane::ErrorExit(
            "baseline forget: say what to forget: --run ID, or --class KEY for a pin",
            controlplane::kExitUsage);
      }
      return Mark(*forget_opts, false);
    }
    return -1;
  };
}

}  // namespace nodeprobe::cli
