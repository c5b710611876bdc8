#include "coordinator/record_check.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "platform/identifiers.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

// Whether `r`'s stored verdict is one FinalizeResult could have given it.
bool Consistent(const v1::ProbeResult& r) {
  const v1::Verdict from_findings = VerdictFromFindings(r);
  switch (r.verdict()) {
    case v1::SKIP:
      return from_findings == v1::PASS;  // SKIP only with informational findings
    case v1::ERROR:
      return WorseVerdict(v1::ERROR, from_findings) == v1::ERROR;
    default:
      return r.verdict() == from_findings;
  }
}

absl::Status Disagrees(const std::string& where, v1::Verdict stored, v1::Verdict given) {
  return absl::FailedPreconditionError(absl::StrCat(
      where, " is stored as ", VerdictName(stored), " but its findings give ", VerdictName(given),
      ": the record was edited or damaged"));
}

absl::Status CheckResult(const std::string& where, const v1::ProbeResult& r) {
  if (Consistent(r)) return absl::OkStatus();
  return Disagrees(where, r.verdict(), VerdictFromFindings(r));
}

}  // namespace

v1::Verdict RunVerdict(const v1::StageRun& run) {
  v1::Verdict v = v1::SKIP;
  for (const auto& rep : run.node_reports()) v = WorseVerdict(v, rep.verdict());
  for (const auto& p : run.pairs()) v = WorseVerdict(v, p.result().verdict());
  for (const auto& c : run.collectives()) v = WorseVerdict(v, c.verdict());
  for (const auto& c : run.congestion()) v = WorseVerdict(v, c.verdict());
  for (const auto& c : run.failures()) v = WorseVerdict(v, c.verdict());
  for (const auto& f : run.findings()) v = WorseVerdict(v, f.severity());
  return v;
}

absl::Status CheckRecord(const v1::StageRun& run) {
  if (run.run_id().empty() || run.stage() == v1::STAGE_UNSPECIFIED) {
    return absl::InvalidArgumentError(
        "not a nodeprobe run: it has no run_id or stage (save one with `nodeprobe report --run "
        "ID --format json`)");
  }
  if (absl::Status s = platform::CheckNodeName("run id", run.run_id()); !s.ok()) return s;
  for (const std::string& node : run.nodes()) {
    if (absl::Status s = platform::CheckNodeName("node name", node); !s.ok()) return s;
  }
  for (const v1::StageReport& rep : run.node_reports()) {
    if (absl::Status s = platform::CheckNodeName("node name", rep.node()); !s.ok()) return s;
    for (const v1::ProbeResult& r : rep.results()) {
      if (absl::Status s = CheckResult(absl::StrCat(rep.node(), " ", r.probe()), r); !s.ok()) {
        return s;
      }
    }
    if (const v1::Verdict given = CombineVerdicts(rep.results()); rep.verdict() != given) {
      return Disagrees(absl::StrCat(rep.node(), "'s single-node report"), rep.verdict(), given);
    }
  }
  for (const v1::PairResult& p : run.pairs()) {
    for (const std::string* node : {&p.from_node(), &p.to_node()}) {
      if (absl::Status s = platform::CheckNodeName("node name", *node); !s.ok()) return s;
    }
    const std::string where = absl::StrCat(p.from_node(), " -> ", p.to_node(), " [", p.rail(), "]");
    if (absl::Status s = CheckResult(where, p.result()); !s.ok()) return s;
  }
  for (const v1::ProbeResult& c : run.collectives()) {
    if (absl::Status s = CheckResult("the collectives", c); !s.ok()) return s;
  }
  for (const v1::CongestionResult& c : run.congestion()) {
    v1::Verdict given = v1::PASS;
    for (const v1::Finding& f : c.findings()) given = WorseVerdict(given, f.severity());
    for (const v1::PairResult& p : c.flows()) given = WorseVerdict(given, p.result().verdict());
    if (c.verdict() != given && !(c.verdict() == v1::ERROR && WorseVerdict(v1::ERROR, given) == v1::ERROR)) {
      return Disagrees(absl::StrCat("congestion ", c.pattern(), " -> ", c.receiver()), c.verdict(), given);
    }
  }
  for (const v1::FailureResult& f : run.failures()) {
    v1::Verdict given = v1::PASS;
    for (const v1::Finding& x : f.findings()) given = WorseVerdict(given, x.severity());
    if (f.verdict() != given && !(f.verdict() == v1::ERROR && WorseVerdict(v1::ERROR, given) == v1::ERROR)) {
      return Disagrees(absl::StrCat("failure ", f.scenario()), f.verdict(), given);
    }
  }
  if (const v1::Verdict given = RunVerdict(run); run.verdict() != given) {
    return Disagrees("the run", run.verdict(), given);
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::coordinator
