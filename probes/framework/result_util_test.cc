#include "probes/framework/result_util.h"

#include "gtest/gtest.h"

namespace nodeprobe {
namespace {

TEST(VerdictTest, FailOutranksErrorOutranksWarn) {
  EXPECT_EQ(WorseVerdict(v1::ERROR, v1::FAIL), v1::FAIL);
  EXPECT_EQ(WorseVerdict(v1::WARN, v1::ERROR), v1::ERROR);
  EXPECT_EQ(WorseVerdict(v1::PASS, v1::WARN), v1::WARN);
  EXPECT_EQ(WorseVerdict(v1::PASS, v1::SKIP), v1::PASS);
}

TEST(VerdictTest, SkipDoesNotCountUnlessEverythingSkipped) {
  google::protobuf::RepeatedPtrField<v1::ProbeResult> results;
  results.Add()->set_verdict(v1::SKIP);
  EXPECT_EQ(CombineVerdicts(results), v1::SKIP);
  results.Add()->set_verdict(v1::PASS);
  EXPECT_EQ(CombineVerdicts(results), v1::PASS);
  results.Add()->set_verdict(v1::WARN);
  EXPECT_EQ(CombineVerdicts(results), v1::WARN);
}

TEST(VerdictTest, VerdictFromFindingsIsWorstSeverity) {
  v1::ProbeResult r;
  EXPECT_EQ(VerdictFromFindings(r), v1::PASS);
  AddFinding(&r, "A", v1::WARN, "", "");
  AddFinding(&r, "B", v1::ERROR, "", "");
  EXPECT_EQ(VerdictFromFindings(r), v1::ERROR);
}

TEST(StageNameTest, RoundTripsAndRejectsUnknown) {
  EXPECT_EQ(StageFromName("single-node"), v1::SINGLE_NODE);
  EXPECT_EQ(StageFromName(StageName(v1::CLUSTER)), v1::CLUSTER);
  EXPECT_EQ(StageFromName("three-node"), v1::STAGE_UNSPECIFIED);
}

}  // namespace
}  // namespace nodeprobe

namespace nodeprobe {
namespace {

TEST(ExceptionNoteTest, SaysWhatTheExceptionDid) {
  v1::Finding f;
  EXPECT_EQ(ExceptionNote(f), "");
  f.set_exception_reason("cable swap (exception in p.yaml)");
  EXPECT_EQ(ExceptionNote(f), "accepted: cable swap (exception in p.yaml)");
  f.set_exception_owner("fabric-team");
  f.set_exception_expires("2027-01-31");
  EXPECT_EQ(ExceptionNote(f),
            "accepted: cable swap (exception in p.yaml) (owner fabric-team, until 2027-01-31)");
  v1::Finding expired;
  expired.set_exception_expired(true);
  expired.set_exception_expires("2026-11-30");
  expired.set_exception_owner("fabric-team");
  EXPECT_EQ(ExceptionNote(expired), "exception expired 2026-11-30 (owner fabric-team): not applied");
}

}  // namespace
}  // namespace nodeprobe
