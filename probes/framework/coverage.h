// File: coverage.h
// How much a stage judged. A PASS whose probes all skipped has validated
// nothing, so every headline (table, JSON, HTML, JUnit) says how many
// results were judged and why the rest were not:
//   "PASS — 1 of 11 probes judged; 10 not applicable here (no GPU, no RDMA NIC)"
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "nodeprobe/v1/result.pb.h"
#include "nodeprobe/v1/service.pb.h"

namespace nodeprobe {

class CoverageCounter {
 public:
  // One result: PASS/WARN/FAIL are judged, SKIP not applicable (`reason`
  // says why), ERROR could not run; an unset verdict counts as not run.
  void Add(v1::Verdict verdict, std::string_view reason = "");
  void Add(const v1::ProbeResult& result) { Add(result.verdict(), result.reason()); }
  void Add(const v1::StageRun& run);
  v1::Coverage Build() const;

 private:
  v1::Coverage counts_;
  std::map<std::string, int> causes_;
};

v1::Coverage CoverageOf(const v1::StageReport& report);
// A multi-node run: every node's probes, every pair, collective,
// congestion and failure result.
v1::Coverage CoverageOf(const v1::StageRun& run);
// A campaign: the runs together.
v1::Coverage CoverageOf(const std::vector<v1::StageRun>& runs);

// "1 of 11 probes judged; 10 not applicable here (no GPU, no RDMA NIC)";
// `what` names the units ("probes", "results").
std::string CoverageLine(const v1::Coverage& coverage, std::string_view what = "probes");

// A skip reason summarised for the headline: "no GPU", "no RDMA NIC", or
// "" (another reason).
std::string SkipCause(std::string_view reason);

}  // namespace nodeprobe
