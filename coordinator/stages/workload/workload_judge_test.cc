#include "coordinator/stages/workload/workload_judge.h"

#include <gtest/gtest.h>

#include <random>

#include "coordinator/stages/workload/workload_findings.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

// Steps of `ranks` ranks whose collectives each wait for the latest
// arrival: every rank's arrival has noise; `late` (if >= 0) arrives
// `late_ms` later in `late_share` of the steps. A rank's wait is the
// latest arrival minus its own; its step ends with the op.
std::vector<StepTimes> Simulate(int ranks, int steps, int late, double late_ms, double late_share,
                                double noise_ms, uint32_t seed, double spike_ms = 0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0, noise_ms);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<StepTimes> out;
  for (int s = 0; s < steps; ++s) {
    std::vector<double> arrive(ranks);
    for (int r = 0; r < ranks; ++r) {
      arrive[r] = 80 + std::fabs(noise(gen));
      // A busy host: now and then one rank is descheduled for a while.
      if (spike_ms > 0 && u(gen) < 0.05) arrive[r] += spike_ms * u(gen);
    }
    if (late >= 0 && u(gen) < late_share) arrive[late] += late_ms;
    const double last = *std::max_element(arrive.begin(), arrive.end());
    StepTimes t;
    for (int r = 0; r < ranks; ++r) {
      t.wait_ms.push_back(last - arrive[r]);
      t.exposed_ms.push_back(last - arrive[r] + 10);
      t.step_ms.push_back(last + 10);
    }
    // One group, one collective: the others' median wait minus its own.
    for (int r = 0; r < ranks; ++r) {
      std::vector<double> others;
      for (int o = 0; o < ranks; ++o) {
        if (o != r) others.push_back(t.wait_ms[o]);
      }
      t.late_ms.push_back(stats::Median(others) - t.wait_ms[r]);
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The acceptance lab: 8 ranks, one node's link at 30% makes its ranks late
// by a large share of the step.
TEST(WorkloadJudgeTest, TheLateRankIsNamedAndOnlyIt) {
  WorkloadRules rules;
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    const WorkloadJudgement j = JudgeSteps(Simulate(8, 20, 5, 30, 0.9, 2, seed), rules, 3, 0.5);
    EXPECT_TRUE(j.straggler) << seed;
    EXPECT_EQ(j.late_rank, 5) << seed;
    EXPECT_GT(j.late_ms, 20) << seed;
  }
}

// Healthy under a busy host's noise (descheduling spikes of up to 40 ms on
// random ranks, 5% of the time): never a straggler in 200 runs.
TEST(WorkloadJudgeTest, AHealthyRunUnderLoadNamesNobody) {
  WorkloadRules rules;
  int named = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    const WorkloadJudgement j =
        JudgeSteps(Simulate(8, 20, -1, 0, 0, 3, seed, /*spike_ms=*/40), rules, 3, 0.5);
    named += j.straggler;
  }
  EXPECT_EQ(named, 0);
}

// One slow step is not a pattern.
TEST(WorkloadJudgeTest, OneLateStepIsNotAStraggler) {
  WorkloadRules rules;
  std::vector<StepTimes> steps = Simulate(8, 20, -1, 0, 0, 1, 7);
  steps[3] = Simulate(8, 1, 2, 50, 1, 1, 8)[0];
  EXPECT_FALSE(JudgeSteps(steps, rules, 3, 0.5).straggler);
}

TEST(WorkloadJudgeTest, FindingsFollowTheBars) {
  WorkloadRules rules;
  rules.step_time_max_ms = 50;
  rules.comm_share_max = 0.05;
  const WorkloadJudgement j = JudgeSteps(Simulate(4, 10, 1, 30, 1, 1, 3), rules, 3, 0.5);
  google::protobuf::RepeatedPtrField<v1::Finding> first, second;
  const std::vector<std::string> nodes = {"n0", "n0", "n1", "n1"};
  AddWorkloadFindings(j, rules, nodes, false, &first);
  AddWorkloadFindings(j, rules, nodes, true, &second);
  std::map<std::string, const v1::Finding*> by_code;
  for (const v1::Finding& f : first) by_code[f.code()] = &f;
  ASSERT_TRUE(by_code.count("WORKLOAD_STRAGGLER"));
  EXPECT_EQ(by_code["WORKLOAD_STRAGGLER"]->severity(), v1::WARN);
  EXPECT_EQ(by_code["WORKLOAD_STRAGGLER"]->device(), "n0 rank 1");
  EXPECT_TRUE(by_code.count("WORKLOAD_STEP_SLOW"));
  EXPECT_TRUE(by_code.count("WORKLOAD_COMM_BOUND"));
  for (const v1::Finding& f : second) {
    if (f.code() == "WORKLOAD_STRAGGLER") EXPECT_EQ(f.severity(), v1::FAIL);
  }
}

// A slow link: nobody arrives late, but the groups of node 3 (ranks 6 and
// 7) are slower than the same transfers elsewhere, and its partners' (node
// 1: one group each) less so. Node 3 is named, as a slow transfer, in
// every seed; with the excess gone nobody is.
TEST(WorkloadJudgeTest, TheNodeWhoseGroupsAreSlowIsNamed) {
  WorkloadRules rules;
  const std::vector<int> node_of = {0, 0, 1, 1, 2, 2, 3, 3};
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> noise(0, 2);
    std::vector<StepTimes> steps = Simulate(8, 12, -1, 0, 0, 1, seed);
    std::vector<StepTimes> healthy = steps;
    for (size_t s = 0; s < steps.size(); ++s) {
      for (int r = 0; r < 8; ++r) {
        const double excess = node_of[r] == 3 ? 30 : node_of[r] == 1 ? 12 : -20;
        steps[s].slow_ms.push_back(excess + noise(gen));
        healthy[s].slow_ms.push_back(noise(gen));
      }
    }
    const WorkloadJudgement j = JudgeSteps(steps, rules, 3, 0.5, node_of);
    EXPECT_TRUE(j.straggler) << seed;
    EXPECT_EQ(j.cause, WorkloadJudgement::kSlowTransfers) << seed;
    EXPECT_EQ(node_of[static_cast<size_t>(std::max(0, j.late_rank))], 3) << seed;
    EXPECT_FALSE(JudgeSteps(healthy, rules, 3, 0.5, node_of).straggler) << seed;
  }
}

// Steps too spread to judge: said, and nothing else claimed.
TEST(WorkloadJudgeTest, TooNoisyIsSaidNotJudged) {
  WorkloadRules rules;
  std::vector<StepTimes> steps = Simulate(4, 10, 1, 30, 1, 1, 3);
  for (size_t s = 0; s < steps.size(); s += 2) {
    for (double& t : steps[s].step_ms) t *= 3;
  }
  const WorkloadJudgement j = JudgeSteps(steps, rules, 3, 0.3);
  EXPECT_TRUE(j.too_noisy);
  google::protobuf::RepeatedPtrField<v1::Finding> f;
  AddWorkloadFindings(j, rules, {"a", "a", "b", "b"}, true, &f);
  ASSERT_EQ(f.size(), 1);
  EXPECT_EQ(f[0].code(), "MEASUREMENT_TOO_NOISY");
}

}  // namespace
}  // namespace nodeprobe::coordinator
