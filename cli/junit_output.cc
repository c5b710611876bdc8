#include "cli/junit_output.h"

#include <libxml/xmlwriter.h>

#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "cli/run_rendering.h"
#include "cli/safe_text.h"
#include "coordinator/acceptance_gate.h"
#include "probes/framework/coverage.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::cli {
namespace {

struct Case {
  std::string classname;
  std::string name;
  v1::Verdict verdict = v1::PASS;
  double seconds = 0;
  std::string reason;  // SKIP / ERROR without findings
  std::string figure;  // what was measured, for <system-out>
  std::vector<const v1::Finding*> findings;
};

struct Suite {
  std::string name;
  std::vector<Case> cases;
};

double Seconds(const google::protobuf::Timestamp& a, const google::protobuf::Timestamp& b) {
  if (a.seconds() == 0 || b.seconds() == 0) return 0;
  const double s = static_cast<double>(b.seconds() - a.seconds()) + (b.nanos() - a.nanos()) / 1e9;
  return s > 0 ? s : 0;
}

Case FromResult(std::string classname, std::string name, const v1::ProbeResult& r) {
  Case c{std::move(classname), std::move(name), r.verdict(), Seconds(r.started(), r.finished()),
         r.reason(), "", {}};
  for (const v1::Finding& f : r.findings()) c.findings.push_back(&f);
  return c;
}

std::string FindingLines(const Case& c) {
  std::string out;
  for (const v1::Finding* f : c.findings) {
    absl::StrAppend(&out, VerdictName(f->severity()), " ", f->code(),
                    f->device().empty() ? "" : absl::StrCat(" [", f->device(), "]"), ": ",
                    f->message(), "\n");
    if (const std::string note = ExceptionNote(*f); !note.empty()) {
      absl::StrAppend(&out, "  ", note, "\n");
    }
    if (!f->remediation().empty()) absl::StrAppend(&out, "  fix: ", f->remediation(), "\n");
  }
  return out;
}

// The first finding of the verdict's severity names the failure.
const v1::Finding* Headline(const Case& c) {
  for (const v1::Finding* f : c.findings) {
    if (f->severity() == c.verdict) return f;
  }
  return c.findings.empty() ? nullptr : c.findings.front();
}

class Writer {
 public:
  Writer() : buf_(xmlBufferCreate()), w_(xmlNewTextWriterMemory(buf_, 0)) {
    xmlTextWriterSetIndent(w_, 1);
    xmlTextWriterSetIndentString(w_, BAD_CAST "  ");
    xmlTextWriterStartDocument(w_, nullptr, "UTF-8", nullptr);
  }
  ~Writer() {
    if (w_) xmlFreeTextWriter(w_);
    xmlBufferFree(buf_);
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void Start(const char* element) { xmlTextWriterStartElement(w_, BAD_CAST element); }
  void End() { xmlTextWriterEndElement(w_); }
  // Every value through EscapeControls: XML 1.0 has no escape for control
  // characters, so one in a message would make the file ill-formed.
  void Attr(const char* name, const std::string& value) {
    xmlTextWriterWriteAttribute(w_, BAD_CAST name, BAD_CAST EscapeControls(value, true).c_str());
  }
  void Text(const std::string& text) {
    xmlTextWriterWriteString(w_, BAD_CAST EscapeControls(text, true).c_str());
  }
  std::string Finish() {
    xmlTextWriterEndDocument(w_);
    xmlFreeTextWriter(w_);  // flushes into buf_
    w_ = nullptr;
    return std::string(reinterpret_cast<const char*>(xmlBufferContent(buf_)),
                       static_cast<size_t>(xmlBufferLength(buf_)));
  }

 private:
  xmlBufferPtr buf_;
  xmlTextWriterPtr w_;
};

struct Counts {
  int tests = 0, failures = 0, errors = 0, skipped = 0;
  double seconds = 0;
  void Add(const Case& c) {
    ++tests;
    failures += c.verdict == v1::FAIL;
    errors += c.verdict == v1::ERROR;
    skipped += c.verdict == v1::SKIP;
    seconds += c.seconds;
  }
  void Add(const Counts& o) {
    tests += o.tests;
    failures += o.failures;
    errors += o.errors;
    skipped += o.skipped;
    seconds += o.seconds;
  }
  void Write(Writer& w) const {
    w.Attr("tests", absl::StrCat(tests));
    w.Attr("failures", absl::StrCat(failures));
    w.Attr("errors", absl::StrCat(errors));
    w.Attr("skipped", absl::StrCat(skipped));
    w.Attr("time", absl::StrFormat("%.3f", seconds));
  }
};

void WriteCase(Writer& w, const Case& c) {
  w.Start("testcase");
  w.Attr("classname", c.classname);
  w.Attr("name", c.name);
  w.Attr("time", absl::StrFormat("%.3f", c.seconds));
  const v1::Finding* head = Headline(c);
  const std::string lines = FindingLines(c);
  if (c.verdict == v1::FAIL || c.verdict == v1::ERROR) {
    w.Start(c.verdict == v1::FAIL ? "failure" : "error");
    w.Attr("type", head ? head->code() : VerdictName(c.verdict));
    w.Attr("message", head ? absl::StrCat(head->code(), ": ", head->message()) : c.reason);
    w.Text(lines.empty() ? c.reason : lines);
    w.End();
  } else if (c.verdict == v1::SKIP) {
    w.Start("skipped");
    w.Attr("message", c.reason.empty() ? "does not apply here" : c.reason);
    w.End();
  }
  const std::string out = absl::StrCat(c.figure.empty() ? "" : c.figure + "\n",
                                       c.verdict == v1::FAIL || c.verdict == v1::ERROR ? ""
                                                                                       : lines);
  if (!out.empty()) {
    w.Start("system-out");
    w.Text(out);
    w.End();
  }
  w.End();
}

// The headline's counts and the production gate (a record's), as
// properties of every suite (JUnit has no properties on <testsuites>): CI
// systems show how much was judged and what the gate still lacks.
void WriteProperties(Writer& w, const v1::Coverage& c, const v1::GateChecklist* gate) {
  w.Start("properties");
  std::vector<std::pair<std::string, std::string>> properties = {
      {"nodeprobe.coverage", CoverageLine(c, "results")},
      {"nodeprobe.total", absl::StrCat(c.total())},
      {"nodeprobe.judged", absl::StrCat(c.judged())},
      {"nodeprobe.not_applicable", absl::StrCat(c.not_applicable())},
      {"nodeprobe.not_run", absl::StrCat(c.not_run())}};
  if (gate) {
    properties.emplace_back("nodeprobe.gate", gate->headline());
    for (const v1::GateItem& g : gate->items()) {
      properties.emplace_back(absl::StrCat("nodeprobe.gate.", g.item()),
                              absl::StrCat(coordinator::GateStateName(g.state()), ": ", g.why()));
    }
  }
  for (const auto& [key, value] : properties) {
    w.Start("property");
    w.Attr("name", key);
    w.Attr("value", value);
    w.End();
  }
  w.End();
}

std::string Write(const std::string& name, const std::vector<Suite>& suites,
                  const v1::Coverage& coverage, const v1::GateChecklist* gate = nullptr) {
  Counts total;
  std::vector<Counts> per(suites.size());
  for (size_t i = 0; i < suites.size(); ++i) {
    for (const Case& c : suites[i].cases) per[i].Add(c);
    total.Add(per[i]);
  }
  Writer w;
  w.Start("testsuites");
  w.Attr("name", name);
  total.Write(w);
  for (size_t i = 0; i < suites.size(); ++i) {
    if (suites[i].cases.empty()) continue;
    w.Start("testsuite");
    w.Attr("name", suites[i].name);
    per[i].Write(w);
    WriteProperties(w, coverage, gate);
    for (const Case& c : suites[i].cases) WriteCase(w, c);
    w.End();
  }
  w.End();
  return w.Finish();
}

Suite NodeSuite(const v1::StageReport& r) {
  Suite s{absl::StrCat(r.node(), " ", StageName(r.stage())), {}};
  for (const v1::ProbeResult& p : r.results()) {
    s.cases.push_back(FromResult(absl::StrCat("nodeprobe.", r.node()), p.probe(), p));
  }
  return s;
}

Case PairCase(const std::string& classname, const v1::PairResult& p) {
  Case c = FromResult(classname,
                      absl::StrCat(RoundTag(p), p.from_node(), " -> ", p.to_node(), " [", p.rail(),
                                   "] ", p.result().has_mtu() ? "path MTU" : "transfer"),
                      p.result());
  c.figure = PairFigure(p);
  return c;
}

}  // namespace

std::string JunitReport(const v1::StageReport& report) {
  return Write(absl::StrCat("nodeprobe ", StageName(report.stage()), " on ", report.node()),
               {NodeSuite(report)}, CoverageOf(report));
}

namespace {

// The suites of one run; names start with `prefix` (a campaign's run id).
std::vector<Suite> RunSuites(const v1::StageRun& run, const std::string& prefix) {
  std::vector<Suite> suites;
  for (const v1::StageReport& r : run.node_reports()) suites.push_back(NodeSuite(r));
  Suite pairs{"pairs", {}};
  for (const v1::PairResult& p : run.pairs()) pairs.cases.push_back(PairCase("nodeprobe.pairs", p));
  suites.push_back(std::move(pairs));
  Suite collectives{"collectives", {}};
  for (const v1::ProbeResult& c : run.collectives()) {
    Case k = FromResult("nodeprobe.collectives",
                        absl::StrCat("nccl across ", c.collective().nranks(), " ranks"), c);
    for (const std::string& line : CollectiveLines(c)) absl::StrAppend(&k.figure, line, "\n");
    collectives.cases.push_back(std::move(k));
  }
  suites.push_back(std::move(collectives));
  Suite congestion{"congestion", {}};
  for (const v1::CongestionResult& r : run.congestion()) {
    Case c{"nodeprobe.congestion",
           absl::StrCat(r.pattern(), " -> ", r.receiver(), " [", r.rail(), "]"),
           r.verdict(), 0, "", CongestionLine(r), {}};
    for (const v1::Finding& f : r.findings()) c.findings.push_back(&f);
    congestion.cases.push_back(std::move(c));
  }
  suites.push_back(std::move(congestion));
  Suite failures{"failure", {}};
  for (const v1::FailureResult& r : run.failures()) {
    Case c{"nodeprobe.failure", absl::StrCat(r.scenario(), " on ", r.node(), " [", r.rail(), "]"),
           r.verdict(), 0, "", absl::StrCat("transfer: ", r.transfer_outcome()), {}};
    for (const v1::Finding& f : r.findings()) c.findings.push_back(&f);
    failures.cases.push_back(std::move(c));
  }
  suites.push_back(std::move(failures));
  // Findings about the run itself (an agent lost, a stage timeout): one
  // case, so that a CI system sees them even when every result passed.
  if (run.findings_size() > 0) {
    Case c{"nodeprobe.run", "run", v1::PASS, 0, "", "", {}};
    for (const v1::Finding& f : run.findings()) {
      c.findings.push_back(&f);
      c.verdict = WorseVerdict(c.verdict, f.severity());
    }
    suites.push_back(Suite{"run", {std::move(c)}});
  }
  for (Suite& s : suites) s.name = prefix + s.name;
  return suites;
}

}  // namespace

std::string JunitRun(const v1::StageRun& run) {
  const v1::GateChecklist gate = coordinator::GateOf({run});
  return Write(absl::StrCat("nodeprobe run ", run.run_id(), " (", StageName(run.stage()), ")"),
               RunSuites(run, ""), CoverageOf(run), &gate);
}

std::string JunitCampaign(const std::vector<v1::StageRun>& runs) {
  std::vector<Suite> suites;
  std::vector<std::string> ids;
  for (const v1::StageRun& run : runs) {
    for (Suite& s : RunSuites(run, absl::StrCat(run.run_id(), " "))) suites.push_back(std::move(s));
    ids.push_back(run.run_id());
  }
  const v1::GateChecklist gate = coordinator::GateOf(runs);
  return Write(absl::StrCat("nodeprobe runs ", absl::StrJoin(ids, ",")), suites, CoverageOf(runs),
               &gate);
}

}  // namespace nodeprobe::cli
