#include "cli/textfile_output.h"

#include "cli/output_file.h"

#include <stdio.h>

#include <cctype>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "prometheus/gauge.h"
#include "prometheus/registry.h"
#include "prometheus/text_serializer.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

// Label names must match [a-zA-Z_][a-zA-Z0-9_]* (prometheus-cpp throws on
// others): measurement label keys come from probes and are made to fit.
std::string LabelName(const std::string& k) {
  std::string out;
  for (char c : k) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

}  // namespace

std::string RenderPrometheus(const v1::StageReport& report) {
  // prometheus-cpp's registry and text serializer: the exposition format
  // (escaping, label order, HELP/TYPE) is the library's, not ours.
  prometheus::Registry registry;
  const std::string stage = StageName(report.stage());
  prometheus::BuildGauge()
      .Name("nodeprobe_stage_verdict")
      .Help("1 for the verdict of the last stage run.")
      .Register(registry)
      .Add({{"stage", stage}, {"verdict", VerdictName(report.verdict())}})
      .Set(1);
  prometheus::BuildGauge()
      .Name("nodeprobe_last_run_timestamp_seconds")
      .Help("When the stage finished.")
      .Register(registry)
      .Add({{"stage", stage}})
      .Set(static_cast<double>(report.finished().seconds()));
  auto& probes = prometheus::BuildGauge()
                     .Name("nodeprobe_probe_verdict")
                     .Help("1 for each probe's verdict.")
                     .Register(registry);
  auto& findings = prometheus::BuildGauge()
                       .Name("nodeprobe_findings")
                       .Help("Findings by probe, code and severity.")
                       .Register(registry);
  auto& measurements = prometheus::BuildGauge()
                           .Name("nodeprobe_measurement")
                           .Help("Every measurement a probe took.")
                           .Register(registry);
  // The version matrix as an info metric (value 1, the version a label), so
  // that fleet drift is one PromQL query (deploy/prometheus/nodeprobe-rules.yml).
  auto& components = prometheus::BuildGauge()
                         .Name("nodeprobe_component_info")
                         .Help("1 for each installed component's version (the version matrix).")
                         .Register(registry);
  for (const v1::ProbeResult& r : report.results()) {
    for (const v1::Component& c : r.inventory().components()) {
      if (!c.present()) continue;
      components.Add({{"component", c.name()}, {"device", c.device()}, {"version", c.version()}})
          .Set(1);
    }
    probes.Add({{"probe", r.probe()}, {"verdict", VerdictName(r.verdict())}}).Set(1);
    for (const v1::Finding& f : r.findings()) {
      findings
          .Add({{"probe", r.probe()}, {"code", f.code()}, {"severity", VerdictName(f.severity())}})
          .Increment();
    }
    for (const v1::Measurement& m : r.measurements()) {
      prometheus::Labels labels = {{"probe", r.probe()}, {"name", m.name()}, {"unit", m.unit()}};
      for (const auto& [k, v] : m.labels()) labels.emplace(LabelName(k), v);  // theirs kept
      measurements.Add(labels).Set(m.value());
    }
  }
  return prometheus::TextSerializer().Serialize(registry.Collect());
}

absl::Status WriteTextfile(const std::string& dir, const v1::StageReport& report) {
  // Replaced on every sweep; a temporary beside it (not *.prom, so the
  // collector never reads it), removed if anything fails (a full disk).
  return WriteOutputFile(absl::StrCat(dir, "/nodeprobe.prom"), RenderPrometheus(report),
                         /*replace=*/true, "--textfile");
}

}  // namespace nodeprobe::cli
