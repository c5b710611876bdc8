// File: finding_codes.h
// Every finding code nodeprobe can emit, declared once, by the folder that
// raises it (FOLDER/NAME_findings.h, registered with np_findings() in its
// CMakeLists): its severity (or the rule that sets it), who emits it, what
// it means and what to do about it. Codes are a stable interface (scripts, dashboards and profile
// exceptions match them): a profile exception naming a code that is not
// here is a typo, reported with the closest known code. AddFinding
// (result_util.h) takes the severity and the remediation from here, so no
// call site types either; `nodeprobe findings --format json` prints the
// table, and tests check that every code the sources emit is in it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nodeprobe/v1/result.pb.h"

namespace nodeprobe {

// The severity of a code whose call sites choose it (by the rule the
// table names), e.g. from a profile key.
inline constexpr v1::Verdict kVaries = v1::VERDICT_UNSPECIFIED;

struct FindingCode {
  const char* code;
  v1::Verdict severity;  // kVaries: set at the call site, as severity_rule says
  const char* owner;     // the probe or stage that emits it
  const char* meaning;
  const char* remediation;
  const char* severity_rule = "";  // only where severity is kVaries
};

// The one table: every folder's declarations, in code order.
const std::vector<FindingCode>& FindingCodes();
// Every np_findings() list concatenated, as declared (generated at
// configure: declared_findings.cc); a code declared twice appears twice.
std::vector<FindingCode> DeclaredFindingCodes();
// nullptr for a code that is not in the table.
const FindingCode* FindFindingCode(std::string_view code);
bool IsKnownFindingCode(std::string_view code);
// The known code nearest by edit distance (for "did you mean").
std::string ClosestFindingCode(std::string_view code);

}  // namespace nodeprobe
