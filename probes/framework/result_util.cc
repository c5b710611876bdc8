#include "probes/framework/result_util.h"

#include <google/protobuf/util/time_util.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "probes/framework/finding_codes.h"

namespace nodeprobe {

google::protobuf::Timestamp StampOf(absl::Time t) {
  return google::protobuf::util::TimeUtil::NanosecondsToTimestamp(absl::ToUnixNanos(t));
}

absl::Time TimeOf(const google::protobuf::Timestamp& stamp) {
  return absl::FromUnixNanos(google::protobuf::util::TimeUtil::TimestampToNanoseconds(stamp));
}

v1::Finding* AddFinding(google::protobuf::RepeatedPtrField<v1::Finding>* findings,
                        std::string_view code, v1::Verdict severity, std::string_view device,
                        std::string message) {
  const FindingCode* known = FindFindingCode(code);
  v1::Finding* f = findings->Add();
  f->set_code(std::string(code));
  // A code missing from the table, or one whose severity varies given
  // without it, is a bug the finding-table tests catch; here it reads as
  // an ERROR (never as a PASS).
  if (severity == kVaries && known) severity = known->severity;
  f->set_severity(severity == kVaries ? v1::ERROR : severity);
  f->set_device(std::string(device));
  f->set_message(std::move(message));
  if (known) f->set_remediation(known->remediation);
  return f;
}

v1::Finding* AddFinding(google::protobuf::RepeatedPtrField<v1::Finding>* findings,
                        std::string_view code, std::string_view device, std::string message) {
  return AddFinding(findings, code, kVaries, device, std::move(message));
}

v1::Finding* AddFinding(v1::ProbeResult* result, std::string_view code, v1::Verdict severity,
                        std::string_view device, std::string message) {
  return AddFinding(result->mutable_findings(), code, severity, device, std::move(message));
}

v1::Finding* AddFinding(v1::ProbeResult* result, std::string_view code, std::string_view device,
                        std::string message) {
  return AddFinding(result->mutable_findings(), code, kVaries, device, std::move(message));
}

std::string ExceptionNote(const v1::Finding& f) {
  std::string who;
  if (!f.exception_owner().empty()) absl::StrAppend(&who, "owner ", f.exception_owner());
  if (f.exception_expired()) {
    return absl::StrCat("exception expired ", f.exception_expires(),
                        who.empty() ? "" : absl::StrCat(" (", who, ")"), ": not applied");
  }
  if (f.exception_reason().empty()) return "";
  if (!f.exception_expires().empty()) {
    absl::StrAppend(&who, who.empty() ? "" : ", ", "until ", f.exception_expires());
  }
  return absl::StrCat("accepted: ", f.exception_reason(),
                      who.empty() ? "" : absl::StrCat(" (", who, ")"));
}

v1::ProbeResult ErrorResult(std::string_view probe, std::string_view code,
                            const std::string& message) {
  v1::ProbeResult r;
  r.set_probe(std::string(probe));
  r.set_verdict(v1::ERROR);
  r.set_reason(message);
  AddFinding(&r, code, "", message);
  return r;
}

v1::ProbeResult SkipResult(std::string_view probe, const std::string& reason) {
  v1::ProbeResult r;
  r.set_probe(std::string(probe));
  r.set_verdict(v1::SKIP);
  r.set_reason(reason);
  return r;
}

void AddMeasurement(v1::ProbeResult* result, std::string_view name,
                    double value, std::string_view unit,
                    const std::map<std::string, std::string>& labels) {
  v1::Measurement* m = result->add_measurements();
  m->set_name(std::string(name));
  m->set_value(value);
  m->set_unit(std::string(unit));
  for (const auto& [k, v] : labels) (*m->mutable_labels())[k] = v;
}

void AddEvidence(v1::ProbeResult* result, const std::string& source,
                 const std::string& value) {
  (*result->mutable_evidence())[source] = value;
}

int VerdictRank(v1::Verdict verdict) {
  switch (verdict) {
    case v1::PASS: return 1;
    case v1::WARN: return 2;
    case v1::ERROR: return 3;
    case v1::FAIL: return 4;
    default: return 0;  // SKIP, unset
  }
}

v1::Verdict WorseVerdict(v1::Verdict a, v1::Verdict b) {
  return VerdictRank(b) > VerdictRank(a) ? b : a;
}

v1::Verdict VerdictFromFindings(const v1::ProbeResult& result) {
  v1::Verdict v = v1::PASS;
  for (const v1::Finding& f : result.findings()) {
    v = WorseVerdict(v, f.severity());
  }
  return v;
}

v1::Verdict CombineVerdicts(
    const google::protobuf::RepeatedPtrField<v1::ProbeResult>& results) {
  v1::Verdict v = v1::SKIP;
  for (const v1::ProbeResult& r : results) v = WorseVerdict(v, r.verdict());
  return v;
}

const char* VerdictName(v1::Verdict verdict) {
  switch (verdict) {
    case v1::PASS: return "PASS";
    case v1::WARN: return "WARN";
    case v1::FAIL: return "FAIL";
    case v1::SKIP: return "SKIP";
    case v1::ERROR: return "ERROR";
    default: return "UNSET";
  }
}

const char* StageName(v1::Stage stage) {
  switch (stage) {
    case v1::SINGLE_NODE: return "single-node";
    case v1::TWO_NODE: return "two-node";
    case v1::CLUSTER: return "cluster";
    case v1::CONGESTION: return "congestion";
    case v1::FAILURE: return "failure";
    case v1::PREFLIGHT:
      return "preflight";
    case v1::WORKLOAD:
      return "workload";
    default: return "unspecified";
  }
}

v1::Verdict VerdictFromName(std::string_view name) {
  for (v1::Verdict v : {v1::PASS, v1::WARN, v1::FAIL, v1::SKIP, v1::ERROR}) {
    if (VerdictName(v) == name) return v;
  }
  return v1::VERDICT_UNSPECIFIED;
}

v1::Stage StageFromName(std::string_view name) {
  for (v1::Stage s : {v1::SINGLE_NODE, v1::TWO_NODE, v1::CLUSTER, v1::CONGESTION, v1::FAILURE,
                      v1::PREFLIGHT, v1::WORKLOAD}) {
    if (StageName(s) == name) return s;
  }
  return v1::STAGE_UNSPECIFIED;
}

std::string ByteSize(uint64_t b) {
  const double d = static_cast<double>(b);
  if (b < (1u << 10)) return absl::StrCat(b, " B");
  if (b < (1u << 20)) return absl::StrFormat("%.0f KiB", d / (1 << 10));
  if (b < (1ull << 30)) return absl::StrFormat("%.1f MiB", d / (1 << 20));
  if (b < (1ull << 40)) return absl::StrFormat("%.1f GiB", d / (1ull << 30));
  if (b < (1ull << 50)) return absl::StrFormat("%.1f TiB", d / (1ull << 40));
  return absl::StrFormat("%.1f PiB", d / (1ull << 50));
}

}  // namespace nodeprobe
