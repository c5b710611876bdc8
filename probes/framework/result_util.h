// File: result_util.h
// Small helpers every probe uses to fill a ProbeResult, and the one place
// that says how verdicts combine.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "absl/time/time.h"
#include "google/protobuf/timestamp.pb.h"
#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

// How results and runs carry time: a protobuf Timestamp of `t`, and back.
google::protobuf::Timestamp StampOf(absl::Time t);
absl::Time TimeOf(const google::protobuf::Timestamp& stamp);

// Findings: the code's severity and remediation come from the finding
// table (finding_codes.h); the call site says what it is about (`device`:
// "mlx5_0:1", "0000:82:00.0", "eth0", a node) and what was seen, with the
// figures, in `message`.
v1::Finding* AddFinding(v1::ProbeResult* result, std::string_view code, std::string_view device,
                        std::string message);
v1::Finding* AddFinding(google::protobuf::RepeatedPtrField<v1::Finding>* findings,
                        std::string_view code, std::string_view device, std::string message);
// For a code whose severity the table leaves to its call sites (kVaries):
// `severity` as the table's rule for it says.
v1::Finding* AddFinding(v1::ProbeResult* result, std::string_view code, v1::Verdict severity,
                        std::string_view device, std::string message);
v1::Finding* AddFinding(google::protobuf::RepeatedPtrField<v1::Finding>* findings,
                        std::string_view code, v1::Verdict severity, std::string_view device,
                        std::string message);

// What a profile exception did to a finding, for people: "accepted: REASON
// (owner O, until E)", "exception expired E (owner O): not applied", or ""
// when none covered it.
std::string ExceptionNote(const v1::Finding& finding);

// A result for something that could not run: verdict ERROR, the message
// as its reason and as one finding with `code`.
v1::ProbeResult ErrorResult(std::string_view probe, std::string_view code,
                            const std::string& message);

// A result for a probe that does not apply here: verdict SKIP with why.
v1::ProbeResult SkipResult(std::string_view probe, const std::string& reason);

void AddMeasurement(v1::ProbeResult* result, std::string_view name,
                    double value, std::string_view unit,
                    const std::map<std::string, std::string>& labels = {});

void AddEvidence(v1::ProbeResult* result, const std::string& source,
                 const std::string& value);

// How bad a verdict is when several are combined: SKIP and unset count as
// nothing, then PASS < WARN < ERROR < FAIL (a hardware failure outranks a
// check that could not run).
int VerdictRank(v1::Verdict verdict);
v1::Verdict WorseVerdict(v1::Verdict a, v1::Verdict b);

// A size in the unit that shows it: "512 B", "64 KiB", "8.0 MiB", "2.0 GiB",
// "1.5 TiB" (binary units), so that a message never says "0.0 GiB" of a
// few kilobytes.
std::string ByteSize(uint64_t bytes);

// PASS, or the worst finding severity.
v1::Verdict VerdictFromFindings(const v1::ProbeResult& result);

// Worst of the results; SKIP when every probe was skipped (or none ran).
v1::Verdict CombineVerdicts(
    const google::protobuf::RepeatedPtrField<v1::ProbeResult>& results);

const char* VerdictName(v1::Verdict verdict);
// VERDICT_UNSPECIFIED for an unknown name.
v1::Verdict VerdictFromName(std::string_view name);
const char* StageName(v1::Stage stage);  // "single-node", ...
// NOT_FOUND-free parse: STAGE_UNSPECIFIED for an unknown name.
v1::Stage StageFromName(std::string_view name);

}  // namespace nodeprobe
