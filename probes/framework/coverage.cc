#include "probes/framework/coverage.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace nodeprobe {

std::string SkipCause(std::string_view reason) {
  const std::string r = absl::AsciiStrToLower(absl::string_view(reason.data(), reason.size()));
  // GPU first: "needs an NVIDIA GPU and an RDMA NIC" is a GPU node's probe.
  for (const char* word : {"gpu", "nvidia", "cuda"}) {
    if (absl::StrContains(r, word)) return "no GPU";
  }
  for (const char* word : {"rdma", "infiniband", "hca"}) {
    if (absl::StrContains(r, word)) return "no RDMA NIC";
  }
  return "";
}

void CoverageCounter::Add(v1::Verdict verdict, std::string_view reason) {
  counts_.set_total(counts_.total() + 1);
  switch (verdict) {
    case v1::PASS:
    case v1::WARN:
    case v1::FAIL:
      counts_.set_judged(counts_.judged() + 1);
      break;
    case v1::SKIP:
      counts_.set_not_applicable(counts_.not_applicable() + 1);
      ++causes_[SkipCause(reason)];
      break;
    default:
      counts_.set_not_run(counts_.not_run() + 1);
  }
}

v1::Coverage CoverageCounter::Build() const {
  v1::Coverage out = counts_;
  std::vector<std::pair<int, std::string>> named;
  int other = 0;
  for (const auto& [cause, n] : causes_) {
    if (cause.empty()) {
      other = n;
    } else {
      named.push_back({-n, cause});
    }
  }
  std::sort(named.begin(), named.end());
  for (const auto& [n, cause] : named) out.add_causes(cause);
  if (other > 0) out.add_causes(absl::StrCat(other, " other"));
  return out;
}

v1::Coverage CoverageOf(const v1::StageReport& report) {
  CoverageCounter c;
  for (const v1::ProbeResult& r : report.results()) c.Add(r);
  return c.Build();
}

void CoverageCounter::Add(const v1::StageRun& run) {
  for (const v1::StageReport& report : run.node_reports()) {
    for (const v1::ProbeResult& r : report.results()) Add(r);
  }
  for (const v1::PairResult& p : run.pairs()) Add(p.result());
  for (const v1::ProbeResult& r : run.collectives()) Add(r);
  for (const v1::CongestionResult& r : run.congestion()) Add(r.verdict());
  for (const v1::FailureResult& r : run.failures()) Add(r.verdict());
}

v1::Coverage CoverageOf(const v1::StageRun& run) {
  CoverageCounter c;
  c.Add(run);
  return c.Build();
}

v1::Coverage CoverageOf(const std::vector<v1::StageRun>& runs) {
  CoverageCounter c;
  for (const v1::StageRun& run : runs) c.Add(run);
  return c.Build();
}

std::string CoverageLine(const v1::Coverage& c, std::string_view what) {
  std::string out = absl::StrCat(c.judged(), " of ", c.total(), " ", std::string(what), " judged");
  if (c.not_applicable() > 0) {
    absl::StrAppend(&out, "; ", c.not_applicable(), " not applicable here");
    if (c.causes_size() > 0) absl::StrAppend(&out, " (", absl::StrJoin(c.causes(), ", "), ")");
  }
  if (c.not_run() > 0) absl::StrAppend(&out, "; ", c.not_run(), " could not run");
  return out;
}

}  // namespace nodeprobe
