#include "coordinator/blame.h"

#include "coordinator/pairing.h"
#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

// Both directions of every pair of `n` nodes on `rails` rails, each
// measured by `gbps(from, to, rail)`.
template <typename F>
std::vector<Measurement> Matrix(int n, int rails, F gbps) {
  std::vector<Measurement> m;
  for (const Round& round : AllPairsRounds(n)) {
    for (auto [a, b] : round) {
      for (int r = 0; r < rails; ++r) {
        m.push_back({a, b, r, "tcp", gbps(a, b, r)});
        m.push_back({b, a, r, "tcp", gbps(b, a, r)});
      }
    }
  }
  return m;
}

TEST(BlameTest, OneSlowNodeIsTheNodeSuspect) {
  // Node 2's egress runs at a tenth: its partners see it only one way.
  auto m = Matrix(6, 1, [](int from, int, int) { return from == 2 ? 1.0 : 10.0; });
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, Suspect::kNode);
  EXPECT_EQ(s[0].node, 2);
  EXPECT_EQ(s[0].low, 5);
  EXPECT_EQ(s[0].partners, 5);
  EXPECT_EQ(s[0].evidence.size(), 5u);
}

TEST(BlameTest, OneSlowRailOnOneNodeIsTheRailSuspect) {
  auto m = Matrix(4, 2, [](int from, int to, int rail) {
    return rail == 1 && (from == 3 || to == 3) ? 40.0 : 90.0;
  });
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, Suspect::kRail);
  EXPECT_EQ(s[0].node, 3);
  EXPECT_EQ(s[0].rail, 1);
  EXPECT_EQ(s[0].evidence.size(), 6u);  // 3 partners x 2 directions
}

TEST(BlameTest, OneBadLinkIsTheLinkSuspect) {
  auto m = Matrix(5, 1, [](int from, int to, int) {
    return (from == 1 && to == 4) ? 3.0 : 10.0;
  });
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, Suspect::kLink);
  EXPECT_EQ(s[0].node, 1);
  EXPECT_EQ(s[0].other, 4);
  EXPECT_EQ(s[0].rail, 0);
}

TEST(BlameTest, TwoBadNodesAreBothBlamedAndNoHealthyOne) {
  // Of four nodes, each good one is low with 2 of 3 partners: only taking
  // the first bad node out keeps the good ones from being blamed.
  auto m = Matrix(4, 1, [](int from, int to, int) {
    return (from == 0 || to == 0 || from == 2 || to == 2) ? 2.0 : 10.0;
  });
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].kind, Suspect::kNode);
  EXPECT_EQ(s[1].kind, Suspect::kNode);
  EXPECT_EQ(s[0].node, 0);
  EXPECT_EQ(s[1].node, 2);
}

TEST(BlameTest, NoisyButHealthyBlamesNobody) {
  // Within 5% of each other, deterministically scattered.
  auto m = Matrix(16, 2, [](int from, int to, int rail) {
    return 95.0 + ((from * 7 + to * 13 + rail * 5) % 11) * 0.5;
  });
  EXPECT_TRUE(FindSuspects(m, {}).empty());
}

TEST(BlameTest, TwoNodesCanOnlyConvictTheLink) {
  auto m = Matrix(2, 1, [](int from, int, int) { return from == 0 ? 1.0 : 10.0; });
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, Suspect::kLink);
}

TEST(BlameTest, KindsAreComparedOnlyWithTheirOwn) {
  // RDMA at 90 and TCP at 10 are both healthy for their kind.
  std::vector<Measurement> m = {{0, 1, 0, "rdma", 90}, {1, 0, 0, "rdma", 91},
                                {0, 2, 0, "tcp", 10},  {2, 0, 0, "tcp", 10},
                                {1, 2, 0, "tcp", 10},  {2, 1, 0, "tcp", 10}};
  EXPECT_TRUE(FindSuspects(m, {}).empty());
}

TEST(BlameTest, ALatencyAboveTwicePlusTheBestConvictsToo) {
  // Bandwidth fine everywhere; node 3's round trips take 5x the best.
  std::vector<Measurement> m = Matrix(4, 1, [](int, int, int) { return 10.0; });
  for (const Round& round : AllPairsRounds(4)) {
    for (auto [a, b] : round) {
      for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
        Measurement x{from, to, 0, "tcp rr_lat", (from == 3 || to == 3) ? 50.0 : 10.0};
        x.latency = true;
        m.push_back(x);
      }
    }
  }
  auto s = FindSuspects(m, {});
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(s[0].kind, Suspect::kNode);
  EXPECT_EQ(s[0].node, 3);
  // 2x the best is within the 2.1x rule.
  for (Measurement& x : m) {
    if (x.latency && x.gbps == 50.0) x.gbps = 20.0;
  }
  EXPECT_TRUE(FindSuspects(m, {}).empty());
  EXPECT_EQ(BestOfKind(m).back(), 10.0);  // the lowest latency is the best
}

TEST(BlameTest, TheShareIsTunable) {
  // Node 0 low with 2 of 4 partners: not above the default half, but above
  // a stricter profile's 0.4.
  auto m = Matrix(5, 1, [](int from, int to, int) {
    return (from == 0 && (to == 1 || to == 2)) ? 1.0 : 10.0;
  });
  for (const Suspect& s : FindSuspects(m, {})) EXPECT_EQ(s.kind, Suspect::kLink);
  auto strict = FindSuspects(m, {0.93, 0.4});
  ASSERT_EQ(strict.size(), 1u);
  EXPECT_EQ(strict[0].kind, Suspect::kNode);
  EXPECT_EQ(strict[0].node, 0);
}

}  // namespace
}  // namespace nodeprobe::coordinator
