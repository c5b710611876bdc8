#include "probes/framework/stage_runner.h"

#include "gtest/gtest.h"
#include "probes/framework/probe_registry.h"
#include "probes/framework/result_util.h"

namespace nodeprobe {
namespace {

// A probe whose outcome the test chooses.
class FakeProbe : public Probe {
 public:
  FakeProbe(std::string name, absl::StatusOr<v1::ProbeResult> outcome, bool intrusive = false)
      : name_(std::move(name)), outcome_(std::move(outcome)), intrusive_(intrusive) {}
  std::string_view name() const override { return name_; }
  std::vector<v1::Stage> stages() const override { return {v1::SINGLE_NODE}; }
  std::string_view purpose() const override { return "test"; }
  bool intrusive() const override { return intrusive_; }
  absl::StatusOr<v1::ProbeResult> Run(const ProbeContext&) override {
    ++runs;
    return outcome_;
  }
  int runs = 0;

 private:
  std::string name_;
  absl::StatusOr<v1::ProbeResult> outcome_;
  bool intrusive_;
};

v1::ProbeResult WithFinding(const std::string& code, v1::Verdict severity) {
  v1::ProbeResult r;
  AddFinding(&r, code, severity, "mlx5_0:1", "m");
  return r;
}

TEST(RunProbesTest, ProbeThatCannotRunIsErrorWithTheReason) {
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.node_name = "gpu01";
  FakeProbe broken("broken", absl::PermissionDeniedError("cannot open /dev/x"));
  v1::StageReport report = RunProbes(v1::SINGLE_NODE, {&broken}, ctx);
  ASSERT_EQ(report.results_size(), 1);
  EXPECT_EQ(report.results(0).verdict(), v1::ERROR);
  EXPECT_EQ(report.results(0).reason(), "cannot open /dev/x");
  EXPECT_EQ(report.results(0).probe(), "broken");
  EXPECT_EQ(report.results(0).node(), "gpu01");
  EXPECT_EQ(report.verdict(), v1::ERROR);
}

TEST(RunProbesTest, StageVerdictIsWorstAndSkipDoesNotCount) {
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  v1::ProbeResult skipped;
  skipped.set_verdict(v1::SKIP);
  FakeProbe a("a", skipped);
  FakeProbe b("b", WithFinding("X", v1::WARN));
  FakeProbe c("c", v1::ProbeResult());
  v1::StageReport report = RunProbes(v1::SINGLE_NODE, {&a, &b, &c}, ctx);
  EXPECT_EQ(report.results(0).verdict(), v1::SKIP);
  EXPECT_EQ(report.results(1).verdict(), v1::WARN);
  EXPECT_EQ(report.results(2).verdict(), v1::PASS);
  EXPECT_EQ(report.verdict(), v1::WARN);
  EXPECT_TRUE(report.has_started());
  EXPECT_TRUE(report.results(0).has_finished());
}

// The busy-node guard: intrusive probes held back on a busy node (asked
// once a stage), run with --force, and never run by a sweep.
TEST(RunProbesTest, ABusyNodeHoldsBackOnlyIntrusiveProbesAskingOnce) {
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  int asked = 0;
  ctx.what_keeps_busy = [&] {
    ++asked;
    return std::vector<std::string>{"Slurm job 7 (slurmstepd pid 42)"};
  };
  FakeProbe quiet("quiet", v1::ProbeResult());
  FakeProbe copies("copies", v1::ProbeResult(), true);
  FakeProbe collectives("collectives", v1::ProbeResult(), true);
  v1::StageReport report = RunProbes(v1::SINGLE_NODE, {&quiet, &copies, &collectives}, ctx);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(quiet.runs, 1);
  EXPECT_EQ(copies.runs + collectives.runs, 0);
  EXPECT_EQ(report.results(0).verdict(), v1::PASS);
  for (int i : {1, 2}) {
    const v1::ProbeResult& r = report.results(i);
    EXPECT_EQ(r.verdict(), v1::SKIP);
    ASSERT_EQ(r.findings_size(), 1);
    EXPECT_EQ(r.findings(0).code(), "NODE_BUSY");
    EXPECT_EQ(r.findings(0).message(), "not run: the node is busy: Slurm job 7 (slurmstepd pid 42)");
  }
  ctx.force = true;
  RunProbes(v1::SINGLE_NODE, {&copies}, ctx);
  EXPECT_EQ(copies.runs, 1);
  EXPECT_EQ(asked, 1);  // forced: not even asked
  ctx.skip_intrusive = true;  // a sweep: not run even when forced
  report = RunProbes(v1::SINGLE_NODE, {&quiet, &copies}, ctx);
  EXPECT_EQ(copies.runs, 1);
  EXPECT_EQ(report.results(1).verdict(), v1::SKIP);
  EXPECT_NE(report.results(1).reason().find("guard.intrusive_in_sweep"), std::string::npos);
}

TEST(RunProbesTest, AnIdleNodeRunsIntrusiveProbes) {
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.what_keeps_busy = [] { return std::vector<std::string>{}; };
  FakeProbe copies("copies", v1::ProbeResult(), true);
  EXPECT_EQ(RunProbes(v1::SINGLE_NODE, {&copies}, ctx).results(0).verdict(), v1::PASS);
  EXPECT_EQ(copies.runs, 1);
}

TEST(RunProbesTest, ExceptionDowngradesOnlyMatchingFail) {
  Profile profile;
  profile.source = "p.yaml";
  profile.exceptions.push_back({"X", "mlx5_0", "known", "", "", std::nullopt});
  ProbeContext ctx;
  ctx.profile = &profile;
  FakeProbe matched("m", WithFinding("X", v1::FAIL));
  FakeProbe other("o", WithFinding("Y", v1::FAIL));
  v1::StageReport report = RunProbes(v1::SINGLE_NODE, {&matched, &other}, ctx);
  EXPECT_EQ(report.results(0).verdict(), v1::WARN);
  EXPECT_EQ(report.results(0).findings(0).exception_reason(),
            "known (exception in p.yaml)");
  EXPECT_EQ(report.results(1).verdict(), v1::FAIL);
}

TEST(RunProbesTest, PassedDeadlineIsErrorNotSilentPass) {
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  ctx.deadline = absl::Now() - absl::Seconds(1);
  FakeProbe a("a", v1::ProbeResult());
  v1::StageReport report = RunProbes(v1::SINGLE_NODE, {&a}, ctx);
  EXPECT_EQ(report.results(0).verdict(), v1::ERROR);
  EXPECT_EQ(report.results(0).findings(0).code(), "PROBE_DEADLINE_EXCEEDED");
}

// One rule: no verdict better than the findings. A probe may say SKIP only
// with nothing to report, and ERROR still yields to a FAIL it found.
TEST(FinalizeResultTest, AProbeCannotSetAVerdictBetterThanItsFindings) {
  struct Case {
    v1::Verdict set;
    std::vector<v1::Verdict> findings;
    v1::Verdict want;
  };
  const std::vector<Case> cases = {
      {v1::SKIP, {}, v1::SKIP},
      {v1::SKIP, {v1::PASS}, v1::SKIP},  // informational findings only
      {v1::SKIP, {v1::WARN}, v1::WARN},
      {v1::SKIP, {v1::ERROR}, v1::ERROR},
      {v1::SKIP, {v1::FAIL, v1::ERROR}, v1::FAIL},
      {v1::PASS, {v1::FAIL}, v1::FAIL},
      {v1::PASS, {v1::ERROR}, v1::ERROR},
      {v1::ERROR, {v1::FAIL}, v1::FAIL},
      {v1::ERROR, {v1::WARN}, v1::ERROR},
      {v1::VERDICT_UNSPECIFIED, {}, v1::PASS},
  };
  for (const Case& c : cases) {
    v1::ProbeResult r;
    r.set_verdict(c.set);
    for (v1::Verdict f : c.findings) AddFinding(&r, "X", f, "", "m");
    FinalizeResult(Profile(), &r);
    EXPECT_EQ(r.verdict(), c.want) << v1::Verdict_Name(c.set) << " with " << c.findings.size()
                                   << " findings";
  }
}

TEST(FinalizeResultTest, AnErrorWithoutAFindingGetsOneWithACode) {
  v1::ProbeResult r;
  r.set_verdict(v1::ERROR);
  r.set_reason("cannot open /sys/x");
  FinalizeResult(Profile(), &r);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "PROBE_COULD_NOT_RUN");
  EXPECT_EQ(r.findings(0).message(), "cannot open /sys/x");
  EXPECT_EQ(r.verdict(), v1::ERROR);
}

TEST(FinalizeResultTest, AnAcceptedFailInASkippedResultIsWarn) {
  Profile profile;
  profile.exceptions.push_back({"X", "", "known", "", "", std::nullopt});
  v1::ProbeResult r;
  r.set_verdict(v1::SKIP);
  AddFinding(&r, "X", v1::FAIL, "dev", "m");
  FinalizeResult(profile, &r);
  EXPECT_EQ(r.verdict(), v1::WARN);
}

TEST(FinalizeResultTest, AnExpiredExceptionIsRecordedButNotApplied) {
  absl::StatusOr<Profile> profile = ParseProfile(
      "exceptions:\n"
      "  - code: RDMA_PORT_DOWN\n    device: mlx5_0\n    reason: cable swap OPS-7\n"
      "    owner: fabric-team\n    expires: 2026-12-31\n",
      "p.yaml");
  ASSERT_TRUE(profile.ok()) << profile.status();
  auto judged_at = [&](const char* when) {
    v1::ProbeResult r;
    AddFinding(&r, "RDMA_PORT_DOWN", v1::FAIL, "mlx5_0:1", "m");
    absl::Time t;
    std::string err;
    EXPECT_TRUE(absl::ParseTime(absl::RFC3339_full, when, &t, &err)) << err;
    FinalizeResult(*profile, &r, t);
    return r;
  };
  // Valid through the last day it names (UTC).
  v1::ProbeResult before = judged_at("2026-12-31T23:59:59Z");
  EXPECT_EQ(before.verdict(), v1::WARN);
  EXPECT_EQ(before.findings(0).exception_owner(), "fabric-team");
  EXPECT_EQ(before.findings(0).exception_expires(), "2026-12-31");
  EXPECT_FALSE(before.findings(0).exception_expired());
  v1::ProbeResult after = judged_at("2027-01-01T00:00:00Z");
  EXPECT_EQ(after.verdict(), v1::FAIL);
  EXPECT_EQ(after.findings(0).severity(), v1::FAIL);
  EXPECT_TRUE(after.findings(0).exception_expired());
  EXPECT_TRUE(after.findings(0).exception_reason().empty());
  EXPECT_EQ(after.findings(0).exception_owner(), "fabric-team");
}

TEST(ProbeRegistryTest, RejectsDuplicateNamesAndListsSorted) {
  ProbeRegistry registry;
  ASSERT_TRUE(registry.Register(std::make_unique<FakeProbe>("zeta", v1::ProbeResult())).ok());
  ASSERT_TRUE(registry.Register(std::make_unique<FakeProbe>("alpha", v1::ProbeResult())).ok());
  EXPECT_EQ(registry.Register(std::make_unique<FakeProbe>("alpha", v1::ProbeResult())).code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(registry.Names(), (std::vector<std::string>{"alpha", "zeta"}));
  EXPECT_EQ(registry.Find("nope"), nullptr);
}

}  // namespace
}  // namespace nodeprobe
