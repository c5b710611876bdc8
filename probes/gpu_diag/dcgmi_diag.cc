#include "probes/gpu_diag/dcgmi_diag.h"

#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "probes/framework/result_util.h"
#include "probes/gpu_diag/gpu_diag_findings.h"

namespace nodeprobe::gpu_diag {
namespace {

constexpr const char* kStatuses[] = {"Pass", "Fail", "Skip", "Warn"};

// "Fail - GPU: 0" -> ("Fail", "GPU: 0"); "Pass" -> ("Pass", ""); none: empty.
std::pair<std::string, std::string> Status(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  for (const char* s : kStatuses) {
    absl::string_view rest = text;
    if (!absl::ConsumePrefix(&rest, s)) continue;
    if (rest.empty()) return {s, ""};
    if (absl::ConsumePrefix(&rest, " - "))
      return {s, std::string(absl::StripAsciiWhitespace(rest))};
  }
  return {"", ""};
}

// The GPUs a status names ("GPU: 0", "GPUs: 1, 2, 3"); "All" or none: {}.
std::vector<std::string> GpusOf(const std::string& scope) {
  absl::string_view s = scope;
  if (!absl::ConsumePrefix(&s, "GPUs: ") && !absl::ConsumePrefix(&s, "GPU: ")) return {};
  std::vector<std::string> out;
  for (absl::string_view g : absl::StrSplit(s, ',', absl::SkipWhitespace())) {
    out.emplace_back(absl::StripAsciiWhitespace(g));
  }
  return out;
}

}  // namespace

DcgmDiag ParseDcgmiDiag(absl::string_view text) {
  DcgmDiag out;
  std::string category;
  std::string* open = nullptr;  // the text a continuation row extends
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    absl::ConsumeSuffix(&line, "\r");
    if (line.size() < 3) continue;
    if ((line[0] == '+' || line[0] == '|') && line[1] == '-') {  // "+-----  Hardware  ---+"
      std::string cleaned;  // the first cell without its dashes
      for (char c : line.substr(1, line.find_first_of("+|", 1) - 1)) {
        if (c != '-') cleaned.push_back(c);
      }
      cleaned = std::string(absl::StripAsciiWhitespace(cleaned));
      if (!cleaned.empty()) category = cleaned;
      open = nullptr;
      continue;
    }
    if (line[0] != '|') {
      open = nullptr;
      continue;
    }
    const size_t sep = line.find('|', 1);
    if (sep == absl::string_view::npos) continue;
    const std::string name(absl::StripAsciiWhitespace(line.substr(1, sep - 1)));
    absl::string_view rest = line.substr(sep + 1);
    absl::ConsumePrefix(&rest, " ");
    // A full row ends "  |" after a fixed-width cell: a wrapped text's
    // pieces join without a space of ours (the width cut words in two).
    if (absl::ConsumeSuffix(&rest, "|")) absl::ConsumeSuffix(&rest, "  ");
    if (name == "Diagnostic") continue;  // the header
    if (name.empty()) {
      if (out.tests.empty() && open == nullptr) continue;
      const auto status = Status(rest);
      if (!status.first.empty() && open == nullptr) {
        out.tests.back().statuses.push_back(status);  // "Fail - GPU: 0" under a "Pass - GPUs: 1"
      } else if (open != nullptr) {
        absl::StrAppend(open, rest);
      }
      continue;
    }
    if (category == "Metadata") {
      out.metadata[name] = std::string(absl::StripAsciiWhitespace(rest));
      open = &out.metadata[name];
      continue;
    }
    if (name == "Warning" || name == "Error" || name == "Info") {
      if (out.tests.empty() || out.tests.back().category != category) {
        // An Error row of its own (a Deployment check that stopped the run).
        out.tests.push_back(DcgmTest{category, category, {}, {}, {}});
        if (name == "Error") out.tests.back().statuses.push_back({"Fail", "All"});
      }
      DcgmTest& t = out.tests.back();
      std::vector<std::string>& into = name == "Info" ? t.info : t.warnings;
      into.emplace_back(rest);
      open = &into.back();
      continue;
    }
    DcgmTest t{category, name, {}, {}, {}};
    const auto status = Status(rest);
    if (!status.first.empty()) t.statuses.push_back(status);
    out.tests.push_back(std::move(t));
    open = nullptr;
  }
  for (DcgmTest& t : out.tests) {
    for (std::string& w : t.warnings) w = std::string(absl::StripAsciiWhitespace(w));
    for (std::string& i : t.info) i = std::string(absl::StripAsciiWhitespace(i));
  }
  for (auto& [k, v] : out.metadata) v = std::string(absl::StripAsciiWhitespace(v));
  return out;
}

void JudgeDcgmiDiag(const DcgmDiag& diag, v1::ProbeResult* result) {
  for (const auto& [key, value] : diag.metadata) {
    (*result->mutable_evidence())[absl::StrCat("dcgmi.", key)] = value;
  }
  int judged = 0;
  std::vector<std::string> skipped;
  for (const DcgmTest& t : diag.tests) {
    for (const auto& [status, scope] : t.statuses) {
      AddMeasurement(
          result, "dcgm_test", status == "Pass" ? 1 : 0, "pass",
          {{"test", t.name}, {"category", t.category}, {"status", status}, {"scope", scope}});
      if (status == "Skip") {
        skipped.push_back(t.name);
        continue;
      }
      ++judged;
      if (status == "Pass") continue;
      const std::vector<std::string> gpus = GpusOf(scope);
      // The warnings about the GPUs this status names ("GPU 0 ..."), else all.
      std::vector<std::string> why;
      for (const std::string& w : t.warnings) {
        bool about = gpus.empty();
        for (const std::string& g : gpus)
          about |= absl::StartsWith(w, absl::StrCat("GPU ", g, " "));
        if (about) why.push_back(w);
      }
      const std::string device =
          gpus.empty() ? "all GPUs" : absl::StrCat("GPU ", absl::StrJoin(gpus, ","));
      // Eight GPUs' same warning is one message's worth: the first three.
      const size_t more = why.size() > 3 ? why.size() - 3 : 0;
      why.resize(why.size() - more);
      const std::string message = absl::StrCat(
          "dcgmi diag: ", t.name, " (", t.category, ") ", status == "Fail" ? "failed" : "warned",
          " on ", device, why.empty() ? "" : ": ", absl::StrJoin(why, " | "),
          more > 0 ? absl::StrCat(" (and ", more, " more)") : "");
      AddFinding(result,
                 status == "Fail" ? findings::kGpuDiagFailed.code : findings::kGpuDiagWarned.code,
                 device, message);
    }
  }
  if (judged == 0) {
    result->set_verdict(v1::SKIP);
    result->set_reason(skipped.empty()
                           ? "dcgmi diag printed no test result"
                           : absl::StrCat("DCGM skipped every test (", absl::StrJoin(skipped, ", "),
                                          "): nothing was judged on this GPU"));
  }
}

}  // namespace nodeprobe::gpu_diag
