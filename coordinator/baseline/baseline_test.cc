#include "coordinator/baseline/baseline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace nodeprobe::baseline {
namespace {

using ::testing::HasSubstr;

std::vector<Sample> Runs(const std::vector<double>& values) {
  std::vector<Sample> out;
  int64_t when = 1'760'000'000;
  for (double v : values) out.push_back({.value = v, .when = when += 86400, .run_id = ""});
  return out;
}

TEST(BaselineTest, MedianSpreadCountAndTheSpanOfTheRuns) {
  const Baseline b = BaselineOf(Runs({392, 390, 394, 391, 393}));
  EXPECT_DOUBLE_EQ(b.median, 392);
  EXPECT_NEAR(b.spread, 1.4826, 1e-9);  // MAD 1
  EXPECT_EQ(b.n, 5u);
  EXPECT_EQ(b.last - b.first, 4 * 86400);
  EXPECT_EQ(BaselineOf({}).n, 0u);
}

// The case: 392 Gb/s per rail last month, 351 today, a profile
// bar of 340 passes both; against a tight baseline it is a 10% drop.
TEST(BaselineTest, ARealTenPercentDropWithATightBaselineFails) {
  const Baseline b = BaselineOf(Runs({392, 390, 394, 391, 393, 392}));
  const Regression r = Judge(351, b, RegressionRules{}, /*higher_is_better=*/true);
  EXPECT_EQ(r.state, Regression::kFail) << r.why;
  EXPECT_NEAR(r.change, 41.0 / 392, 1e-9);
  EXPECT_THAT(r.why, HasSubstr("10.5% worse"));
  EXPECT_EQ(Judge(369, b, RegressionRules{}, true).state, Regression::kWarn);  // 5.9%
  EXPECT_EQ(Judge(388, b, RegressionRules{}, true).state, Regression::kWithin);
  EXPECT_EQ(Judge(420, b, RegressionRules{}, true).state, Regression::kWithin);  // better
}

TEST(BaselineTest, AFigureWithinTheBaselinesOwnSpreadIsNotARegression) {
  // A class whose busbw scatters +-8% run to run: 7% low is its noise.
  const Baseline b = BaselineOf(Runs({350, 322, 378, 340, 362, 331, 369}));
  const Regression r = Judge(326, b, RegressionRules{}, true);
  EXPECT_EQ(r.state, Regression::kWithin) << r.why;
  EXPECT_GT(r.change, RegressionRules{}.warn);  // past the fraction, inside the noise
  EXPECT_THAT(r.why, HasSubstr("within the noise bar"));
  // The same drop under a noisy, heavier load: a judge that held on a
  // quiet box holds here too (step times: lower is better).
  const Baseline steps = BaselineOf(Runs({310, 305, 330, 298, 342, 315}));
  EXPECT_EQ(Judge(350, steps, RegressionRules{}, false).state, Regression::kWithin);
  EXPECT_EQ(Judge(480, steps, RegressionRules{}, false).state, Regression::kFail);
}

TEST(BaselineTest, AClassWithFewRunsIsNotEnoughRunsNeverJudged) {
  const Baseline one = BaselineOf(Runs({392}));
  const Regression r = Judge(100, one, RegressionRules{}, true);
  EXPECT_EQ(r.state, Regression::kNotEnoughRuns);
  EXPECT_THAT(r.why, HasSubstr("not enough runs: the class has 1 accepted, the rule needs 5"));
  EXPECT_EQ(Judge(100, BaselineOf(Runs({392, 391})), RegressionRules{}, true).state,
            Regression::kNotEnoughRuns);
}

}  // namespace
}  // namespace nodeprobe::baseline
