#include "cli/single_node_soak.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "agent/kernel_watch.h"
#include "cli/log_input.h"
#include "coordinator/soak_profile.h"
#include "probes/builtin_probes.h"
#include "probes/framework/result_util.h"
#include "probes/framework/soak_series.h"
#include "probes/framework/stage_runner.h"

namespace nodeprobe::cli {
namespace {

struct Point {
  double at_s = 0;
  double value = 0;
};
struct Series {
  std::string unit;
  std::vector<Point> points;
};
using SeriesMap = std::map<std::string, Series>;

// The intrusive probes' bandwidth figures of one round, each under its
// series' name (a port's rate or a link's width is not measured again).
void Collect(const v1::StageReport& round, double at_s, SeriesMap* series,
             std::set<std::string>* measuring) {
  static const ProbeRegistry registry = BuiltinProbes();
  for (const v1::ProbeResult& r : round.results()) {
    const Probe* probe = registry.Find(r.probe());
    if (probe == nullptr || !probe->intrusive()) continue;
    for (const v1::Measurement& m : r.measurements()) {
      if (m.unit() != "Gb/s" && m.unit() != "GB/s") continue;
      std::vector<std::string> labels;
      for (const auto& [k, v] : m.labels()) labels.push_back(absl::StrCat(k, "=", v));
      std::sort(labels.begin(), labels.end());
      Series& s = (*series)[absl::StrCat(
          r.probe(), " ", m.name(), labels.empty() ? "" : " [" + absl::StrJoin(labels, ",") + "]")];
      s.unit = m.unit();
      s.points.push_back({at_s, m.value()});
      measuring->insert(r.probe());
    }
  }
}

v1::ProbeResult Judge(const SeriesMap& series, int rounds, double soak_s, const Profile& profile) {
  v1::ProbeResult r;
  r.set_probe("soak");
  const SoakRules& rules = profile.Section<SoakRules>();
  AddEvidence(&r, "soak", absl::StrFormat("%d rounds over %.0f s asked", rounds, soak_s));
  for (const auto& [name, s] : series) {
    std::vector<double> g;
    std::vector<std::string> figures;
    for (const Point& p : s.points) {
      g.push_back(p.value);
      figures.push_back(absl::StrFormat("%.3g@%.0fs", p.value, p.at_s));
    }
    const SeriesStats stats = StatsOf(g);
    AddEvidence(
        &r, "soak." + name,
        absl::StrFormat("mean %.3g %s, spread %.1f%%, drift %+.1f%%: %s", stats.mean, s.unit,
                        100 * stats.spread, 100 * stats.drift, absl::StrJoin(figures, " ")));
    AddMeasurement(&r, "soak_spread", stats.spread, "ratio", {{"series", name}});
    AddMeasurement(&r, "soak_drift", stats.drift, "ratio", {{"series", name}});
    JudgeSeries(name, g, s.unit, rules.max_spread, rules.max_drift, r.mutable_findings());
  }
  if (series.empty()) {
    r.set_verdict(v1::SKIP);
    r.set_reason("no intrusive probe measured a bandwidth here: nothing to repeat");
  }
  FinalizeResult(profile, &r);
  return r;
}

// The error counters over the soak's own window: `fault-counters` run at
// its start and at its end against a baseline of their own (a temporary
// state directory), so AER, RDMA port and NVLink growth during the soak is
// said, whatever the last sweep's baseline holds.
class WindowCounters {
 public:
  explicit WindowCounters(const RunOptions& options) : options_(options) {
    options_.probes = {"fault-counters"};
    options_.soak_s = 0;
    std::string dir =
        (getenv("TMPDIR") ? std::string(getenv("TMPDIR")) : "/tmp") + "/nodeprobe-soak-XXXXXX";
    if (mkdtemp(dir.data()) != nullptr) dir_ = dir;
    (void)Read();  // the baseline
  }
  ~WindowCounters() {
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  // The growth since the start, as a `soak-counters` result; none when
  // there is nothing to count here or it could not run.
  std::optional<v1::ProbeResult> Finish() {
    absl::StatusOr<v1::StageReport> end = Read();
    if (!end.ok() || end->results_size() != 1 || end->results(0).verdict() == v1::SKIP) {
      return std::nullopt;
    }
    v1::ProbeResult r = end->results(0);
    r.set_probe("soak-counters");
    return r;
  }

 private:
  absl::StatusOr<v1::StageReport> Read() {
    if (dir_.empty()) return absl::UnavailableError("no temporary directory");
    const char* was = getenv("NODEPROBE_STATE_DIR");
    const std::string before = was ? was : "";
    setenv("NODEPROBE_STATE_DIR", dir_.c_str(), 1);  // the worker inherits it
    absl::StatusOr<v1::StageReport> r = RunStageHere(options_);
    if (was) {
      setenv("NODEPROBE_STATE_DIR", before.c_str(), 1);
    } else {
      unsetenv("NODEPROBE_STATE_DIR");
    }
    return r;
  }

  RunOptions options_;
  std::string dir_;
};

// The kernel log over the soak's window, followed from its start (what
// came before is stamped before it and left out): a `soak-kernel-events`
// result, or why it could not be read.
class WindowEvents {
 public:
  explicit WindowEvents(const std::string& path) : start_(absl::Now()) {
    agent::KernelWatch::Options o;
    o.path = path;
    o.sys_root = "";  // the counters are WindowCounters'
    o.sample_every = absl::InfiniteDuration();
    absl::StatusOr<std::unique_ptr<agent::KernelWatch>> w = agent::KernelWatch::Start(o);
    if (w.ok()) {
      watch_ = std::move(*w);
    } else {
      why_ = absl::StrCat(path, ": ", w.status().message());
    }
  }
  v1::ProbeResult Finish(const Profile& profile) {
    if (watch_ == nullptr) {
      // The privilege hint only where privilege is what was missing.
      const bool denied = absl::StrContains(why_, "Permission denied") ||
                          absl::StrContains(why_, "Operation not permitted");
      return SkipResult("soak-kernel-events",
                        absl::StrCat("the kernel log was not read (", why_, ")",
                                     denied ? ": run as root or with CAP_SYSLOG" : ""));
    }
    v1::ProbeResult r = watch_->Window(absl::Now() - start_, profile);
    r.set_probe("soak-kernel-events");
    FinalizeResult(profile, &r);
    return r;
  }

 private:
  absl::Time start_;
  std::unique_ptr<agent::KernelWatch> watch_;
  std::string why_;
};

}  // namespace

absl::StatusOr<v1::StageReport> RunSingleNodeSoak(const RunOptions& options) {
  absl::StatusOr<Profile> profile = LoadProfileWarning(options.profile_path);
  if (!profile.ok()) return profile.status();
  const absl::Time start = absl::Now();
  const absl::Time until = start + absl::Seconds(options.soak_s);
  WindowEvents events(options.kmsg_path);  // from the first round on
  absl::StatusOr<v1::StageReport> first = RunStageHere(options);
  if (!first.ok()) return first.status();
  SeriesMap series;
  std::set<std::string> measuring;
  Collect(*first, 0, &series, &measuring);
  RunOptions again = options;
  again.probes.assign(measuring.begin(), measuring.end());
  WindowCounters counters(options);
  int rounds = 1;
  const bool show = !options.quiet && isatty(STDERR_FILENO);
  while (!measuring.empty() && absl::Now() < until) {
    if (show) {
      std::cerr << absl::StrFormat("soak round %d (%.0f s left): %s\n", rounds + 1,
                                   absl::ToDoubleSeconds(until - absl::Now()),
                                   absl::StrJoin(again.probes, ", "));
    }
    const double at_s = absl::ToDoubleSeconds(absl::Now() - start);
    absl::StatusOr<v1::StageReport> round = RunStageHere(again);
    if (!round.ok()) return round.status();
    std::set<std::string> still;
    Collect(*round, at_s, &series, &still);
    ++rounds;
    if (still.empty()) break;  // nothing measured any more: the results say why
  }
  *first->add_results() = Judge(series, rounds, options.soak_s, *profile);
  if (std::optional<v1::ProbeResult> grew = counters.Finish()) *first->add_results() = *grew;
  *first->add_results() = events.Finish(*profile);
  FinalizeReport(&*first);
  return first;
}

}  // namespace nodeprobe::cli
