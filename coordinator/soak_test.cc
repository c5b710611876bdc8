// A soak judged over time: a steady path passes with its spread, a path
// that steps down for good is SOAK_DRIFT FAIL, a scattering one is
// SOAK_UNSTABLE; retests and partial figures are not points.
#include "coordinator/soak.h"

#include <google/protobuf/util/time_util.h>

#include <vector>

#include "coordinator/soak_profile.h"
#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

using google::protobuf::util::TimeUtil;

void AddPairs(v1::StageRun* run, const std::string& from, const std::string& to,
              const std::vector<double>& gbps) {
  for (size_t i = 0; i < gbps.size(); ++i) {
    v1::PairResult* p = run->add_pairs();
    p->set_from_node(from);
    p->set_to_node(to);
    p->set_rail("eth0");
    p->set_round(i == 0 ? 0 : static_cast<uint32_t>(i + 1));  // round 1 is the stage's own
    *p->mutable_result()->mutable_started() =
        TimeUtil::SecondsToTimestamp(1000 + 10 * static_cast<int64_t>(i));
    v1::TransferReport* t = p->mutable_result()->mutable_transfer();
    t->set_op(v1::STREAM_BW);
    t->add_results()->set_bw_avg_gbps(gbps[i]);
  }
}

const v1::Finding* Find(const v1::StageRun& run, const std::string& code) {
  for (const v1::Finding& f : run.findings()) {
    if (f.code() == code) return &f;
  }
  return nullptr;
}

v1::StageRun Started() {
  v1::StageRun run;
  *run.mutable_started() = TimeUtil::SecondsToTimestamp(995);
  return run;
}

TEST(SoakTest, ASteadyPathIsASeriesWithItsFiguresAndNoFinding) {
  v1::StageRun run = Started();
  AddPairs(&run, "gpu-a", "gpu-b", {9.4, 9.5, 9.3, 9.4, 9.5, 9.4});
  AddPairs(&run, "gpu-b", "gpu-a", {9.1, 9.2, 9.1, 9.2, 9.1, 9.2});
  // A retest and a partial figure: not points of the series.
  run.mutable_pairs(0)->set_retest(false);
  v1::PairResult retest = run.pairs(0);
  retest.set_retest(true);
  retest.mutable_result()->mutable_transfer()->mutable_results(0)->set_bw_avg_gbps(1);
  *run.add_pairs() = retest;
  v1::PairResult partial = run.pairs(0);
  partial.mutable_result()->mutable_transfer()->mutable_results(0)->set_partial(true);
  *run.add_pairs() = partial;
  JudgeSoak(SoakRules(), 60, &run);
  EXPECT_EQ(run.findings_size(), 0);
  ASSERT_EQ(run.soak().series_size(), 2);
  EXPECT_EQ(run.soak().duration_s(), 60);
  EXPECT_EQ(run.soak().intervals(), 6u);
  const v1::SoakSeries& s = run.soak().series(0);
  EXPECT_EQ(s.from_node(), "gpu-a");
  EXPECT_EQ(s.op(), "STREAM_BW");
  ASSERT_EQ(s.points_size(), 6);
  EXPECT_EQ(s.points(0).round(), 1u);
  EXPECT_DOUBLE_EQ(s.points(0).at_s(), 5);
  EXPECT_DOUBLE_EQ(s.points(5).at_s(), 55);
  EXPECT_NEAR(s.mean_gbps(), 9.4167, 1e-3);
  EXPECT_DOUBLE_EQ(s.min_gbps(), 9.3);
  EXPECT_DOUBLE_EQ(s.max_gbps(), 9.5);
  EXPECT_GT(s.spread(), 0);
  EXPECT_LT(s.spread(), 0.01);
}

TEST(SoakTest, APathThatStepsDownForGoodIsDriftFail) {
  v1::StageRun run = Started();
  AddPairs(&run, "gpu-a", "gpu-b", {9.4, 9.5, 9.4, 7.1, 7.0, 7.1});
  JudgeSoak(SoakRules(), 60, &run);
  const v1::Finding* drift = Find(run, "SOAK_DRIFT");
  ASSERT_NE(drift, nullptr);
  EXPECT_EQ(drift->severity(), v1::FAIL);
  EXPECT_EQ(drift->device(), "gpu-a -> gpu-b [eth0] STREAM_BW");
  EXPECT_NEAR(run.soak().series(0).drift(), 7.05 / 9.45 - 1, 1e-9);
}

TEST(SoakTest, ScatterIsUnstableAndAnOverlappingDropOnlyAWarn) {
  v1::StageRun run = Started();
  AddPairs(&run, "gpu-a", "gpu-b", {9.0, 4.0, 9.0, 4.0, 9.0, 4.0});
  AddPairs(&run, "gpu-b", "gpu-a", {9.0, 7.0, 8.0, 8.0, 9.0, 6.5});
  SoakRules rules;
  JudgeSoak(rules, 60, &run);
  const v1::Finding* unstable = Find(run, "SOAK_UNSTABLE");
  ASSERT_NE(unstable, nullptr);
  EXPECT_EQ(unstable->severity(), v1::WARN);
  EXPECT_EQ(unstable->device(), "gpu-a -> gpu-b [eth0] STREAM_BW");
  // gpu-b -> gpu-a: the last third (9.0, 6.5) is 3 % below the first
  // (9.0, 7.0): within soak.max_drift, so nothing; with a tighter bar a
  // WARN, since its late figures overlap its early ones.
  EXPECT_EQ(Find(run, "SOAK_DRIFT"), nullptr);
  v1::StageRun again = Started();
  AddPairs(&again, "gpu-b", "gpu-a", {9.0, 7.0, 8.0, 8.0, 9.0, 6.5});
  rules.max_drift = 0.01;
  rules.max_spread = 0.5;
  JudgeSoak(rules, 60, &again);
  const v1::Finding* drift = Find(again, "SOAK_DRIFT");
  ASSERT_NE(drift, nullptr);
  EXPECT_EQ(drift->severity(), v1::WARN);
}

TEST(SoakTest, TwoFiguresAreShownButNotJudged) {
  v1::StageRun run = Started();
  AddPairs(&run, "gpu-a", "gpu-b", {9.0, 1.0});
  JudgeSoak(SoakRules(), 60, &run);
  EXPECT_EQ(run.findings_size(), 0);
  ASSERT_EQ(run.soak().series_size(), 1);
  EXPECT_EQ(run.soak().series(0).points_size(), 2);
}

}  // namespace
}  // namespace nodeprobe::coordinator
