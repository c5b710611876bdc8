// File: textfile_output.cc
#include "cli/textfile_output.h"

#include <stdio.h>

#include <cctype>
#include <fstream>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

std::string Escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out.push_back('\\');
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out.push_back(c);
  }
  return out;
}

// Label names must match [a-zA-Z_][a-zA-Z0-9_]*.
std::string LabelName(const std::string& k) {
  std::string out;
  for (char c : k) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out.insert(0, "_");
  return out;
}

}  // namespace

std::string RenderPrometheus(const v1::StageReport& report) {
  const std::string stage = StageName(report.stage());
  std::string out;
  absl::StrAppend(&out,
                  "# HELP nodeprobe_stage_verdict 1 for the verdict of the last stage run.\n"
                  "# TYPE nodeprobe_stage_verdict gauge\n",
                  "nodeprobe_stage_verdict{stage=\"", stage, "\",verdict=\"",
                  VerdictName(report.verdict()), "\"} 1\n",
                  "# HELP nodeprobe_last_run_timestamp_seconds When the stage finished.\n"
                  "# TYPE nodeprobe_last_run_timestamp_seconds gauge\n",
                  "nodeprobe_last_run_timestamp_seconds{stage=\"", stage, "\"} ",
                  report.finished().seconds(), "\n",
                  "# HELP nodeprobe_probe_verdict 1 for each probe's verdict.\n"
                  "# TYPE nodeprobe_probe_verdict gauge\n");
  for (const v1::ProbeResult& r : report.results()) {
    absl::StrAppend(&out, "nodeprobe_probe_verdict{probe=\"", Escape(r.probe()),
                    "\",verdict=\"", VerdictName(r.verdict()), "\"} 1\n");
  }
  absl::StrAppend(&out,
                  "# HELP nodeprobe_findings Findings by probe, code and severity.\n"
                  "# TYPE nodeprobe_findings gauge\n");
  for (const v1::ProbeResult& r : report.results()) {
    std::map<std::pair<std::string, std::string>, int> counts;
    for (const v1::Finding& f : r.findings()) ++counts[{f.code(), VerdictName(f.severity())}];
    for (const auto& [key, n] : counts) {
      absl::StrAppend(&out, "nodeprobe_findings{probe=\"", Escape(r.probe()), "\",code=\"",
                      Escape(key.first), "\",severity=\"", key.second, "\"} ", n, "\n");
    }
  }
  absl::StrAppend(&out,
                  "# HELP nodeprobe_measurement Every measurement a probe took.\n"
                  "# TYPE nodeprobe_measurement gauge\n");
  for (const v1::ProbeResult& r : report.results()) {
    for (const v1::Measurement& m : r.measurements()) {
      std::string labels = absl::StrCat("probe=\"", Escape(r.probe()), "\",name=\"",
                                        Escape(m.name()), "\",unit=\"", Escape(m.unit()), "\"");
      std::map<std::string, std::string> sorted(m.labels().begin(), m.labels().end());
      for (const auto& [k, v] : sorted) {
        const std::string name = LabelName(k);
        if (name == "probe" || name == "name" || name == "unit") continue;
        absl::StrAppend(&labels, ",", name, "=\"", Escape(v), "\"");
      }
      absl::StrAppend(&out, "nodeprobe_measurement{", labels, "} ",
                      absl::StrFormat("%.17g", m.value()), "\n");
    }
  }
  return out;
}

absl::Status WriteTextfile(const std::string& dir, const v1::StageReport& report) {
  const std::string path = absl::StrCat(dir, "/nodeprobe.prom");
  const std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::trunc);
    if (!out) {
      return absl::InvalidArgumentError(
          absl::StrCat("--textfile: cannot write ", tmp, " (does ", dir, " exist and is it writable?)"));
    }
    out << RenderPrometheus(report);
    if (!out.flush()) return absl::InternalError(absl::StrCat("--textfile: writing ", tmp, " failed"));
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return absl::InternalError(absl::StrCat("--textfile: cannot rename to ", path));
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::cli
