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

// A slow link also makes a pipeline partner late at its next collective:
// node 3's groups are slow, and rank 2 (node 1, its partner) arrives late
// in 90% of the steps because it waited on node 3's sends. The link is
// named, not the partner (the namespace lab blamed the partner 1 run in 5
// while lateness was judged first). A rank late on its own, with no slow
// group, is still named by its lateness (TheLateRankIsNamedAndOnlyIt).
TEST(WorkloadJudgeTest, ASlowLinkIsNamedBeforeThePartnerItMadeLate) {
  WorkloadRules rules;
  const std::vector<int> node_of = {0, 0, 1, 1, 2, 2, 3, 3};
  for (uint32_t seed = 1; seed <= 50; ++seed) {
    std::mt19937 gen(seed);
    std::normal_distribution<double> noise(0, 2);
    std::vector<StepTimes> steps = Simulate(8, 12, 2, 30, 0.9, 1, seed);
    for (StepTimes& s : steps) {
      for (int r = 0; r < 8; ++r) s.slow_ms.push_back((node_of[r] == 3 ? 30 : 0) + noise(gen));
    }
    const WorkloadJudgement j = JudgeSteps(steps, rules, 3, 0.5, node_of);
    EXPECT_TRUE(j.straggler) << seed;
    EXPECT_EQ(j.cause, WorkloadJudgement::kSlowTransfers) << seed;
    EXPECT_EQ(node_of[static_cast<size_t>(std::max(0, j.late_rank))], 3) << seed;
  }
}

// Two measurements of the namespace lab with gpu-e's link shaped to 30%
// and both cores busy (slow-group excess per rank and step, ms, as the
// stage computed them; ranks 6 and 7 on gpu-e). The first alone: gpu-e
// led 10 of 12 steps by more than the bar, but by less than the noise of
// 12 steps; undecided, not healthy. Pooled with the second: named.
std::vector<StepTimes> LabSteps(const std::vector<std::vector<double>>& slow) {
  std::vector<StepTimes> out(slow[0].size());
  for (size_t s = 0; s < out.size(); ++s) {
    for (size_t r = 0; r < slow.size(); ++r) {
      out[s].step_ms.push_back(700 + static_cast<double>(s % 3));
      out[s].exposed_ms.push_back(680);
      out[s].late_ms.push_back(0);
      out[s].slow_ms.push_back(slow[r][s]);
    }
  }
  return out;
}

TEST(WorkloadJudgeTest, ALeadWithinTheNoiseIsUndecidedAndMoreStepsDecideIt) {
  const std::vector<std::vector<double>> within = {
      {-35, -33, -52, -46, -47, -105, -70, -39, -33, -44, -36, -58},
      {-50, -50, -42, -41, -40, -47, -64, -41, -29, -90, -68, -56},
      {-35, -33, -40, -46, -47, -27, -42, -39, -33, -44, -36, -47},
      {-50, -34, -35, -41, -40, -44, -39, -43, -29, -42, -38, -56},
      {-17, 31, -52, -36, 24, -105, -70, -8, -26, 2, 10, -58},
      {-24, -50, -42, 9, 11, -47, -64, 43, 4, -90, -68, -9},
      {17, -31, 52, 36, -24, 27, 39, 8, 26, -2, -10, 49},
      {24, 50, 35, -9, -11, 47, 59, -43, -4, 65, 36, 9}};
  const std::vector<std::vector<double>> again = {
      {-84, -57, -47, -34, -50, -33, -38, -27, -43, -48, -40, -34},
      {-45, -47, -94, -26, -46, -34, -37, -32, -53, -47, -62, -64},
      {-37, -48, -47, -34, -50, -33, -38, -27, -43, -44, -40, -34},
      {-32, -47, -52, -26, -46, -34, -37, -32, -36, -47, -35, -45},
      {-84, -57, -44, -34, -27, -0, -27, -15, -41, -48, -13, -6},
      {-45, -17, -94, 7, -2, 2, -31, -24, -53, -2, -62, -64},
      {81, 47, 44, 26, 27, 0, 27, 15, 41, 48, 13, 6},
      {32, 17, 47, -7, 2, -2, 31, 24, 36, 2, 62, 34}};
  const std::vector<int> node_of = {0, 0, 1, 1, 2, 2, 3, 3};
  WorkloadRules rules;
  const WorkloadJudgement first = JudgeSteps(LabSteps(within), rules, 3, 0.5, node_of);
  EXPECT_FALSE(first.straggler);
  EXPECT_EQ(first.late_rank, -1);
  ASSERT_GE(first.undecided_rank, 0);
  EXPECT_EQ(node_of[static_cast<size_t>(first.undecided_rank)], 3);
  std::vector<StepTimes> pooled = LabSteps(within);
  for (StepTimes& s : LabSteps(again)) pooled.push_back(std::move(s));
  const WorkloadJudgement both = JudgeSteps(pooled, rules, 3, 0.5, node_of);
  EXPECT_TRUE(both.straggler);
  EXPECT_EQ(both.cause, WorkloadJudgement::kSlowTransfers);
  EXPECT_EQ(node_of[static_cast<size_t>(std::max(0, both.late_rank))], 3);
  EXPECT_EQ(both.undecided_rank, -1);
  // A healthy run is never undecided: nobody leads by the bar.
  std::vector<std::vector<double>> quiet(8, std::vector<double>(12, 0));
  for (size_t r = 0; r < 8; ++r) {
    for (size_t s = 0; s < 12; ++s) quiet[r][s] = within[(r + s) % 8][s] / 4;
  }
  EXPECT_EQ(JudgeSteps(LabSteps(quiet), rules, 3, 0.5, node_of).undecided_rank, -1);
}

// Steps too spread to judge the step's bars: said, and no bar judged. A
// rank that stands out beyond its own noise is still named, as a WARN
// even when confirmed (a noisy measurement never FAILs a node); without
// one, nothing else is claimed.
TEST(WorkloadJudgeTest, TooNoisyIsSaidAndAClearStragglerIsOnlyAWarn) {
  WorkloadRules rules;
  rules.step_time_max_ms = 1;  // every step above it: not judged when too noisy
  for (const bool late : {true, false}) {
    std::vector<StepTimes> steps = Simulate(4, 10, late ? 1 : -1, 30, 1, 1, 3);
    for (size_t s = 0; s < steps.size(); s += 2) {
      for (double& t : steps[s].step_ms) t *= 3;
    }
    const WorkloadJudgement j = JudgeSteps(steps, rules, 3, 0.3);
    EXPECT_TRUE(j.too_noisy);
    EXPECT_EQ(j.straggler, late);
    google::protobuf::RepeatedPtrField<v1::Finding> f;
    AddWorkloadFindings(j, rules, {"a", "a", "b", "b"}, true, &f);
    ASSERT_EQ(f.size(), late ? 2 : 1) << late;
    EXPECT_EQ(f[0].code(), "MEASUREMENT_TOO_NOISY");
    if (late) {
      EXPECT_EQ(f[1].code(), "WORKLOAD_STRAGGLER");
      EXPECT_EQ(f[1].severity(), v1::WARN);
      EXPECT_EQ(f[1].device(), "a rank 1");
    }
  }
}

}  // namespace
}  // namespace nodeprobe::coordinator
