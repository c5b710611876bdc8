#include "coordinator/stages/cluster/blame.h"

#include "coordinator/stages/cluster/pairing.h"
#include "gtest/gtest.h"
#include "platform/statistics.h"

namespace nodeprobe::coordinator {
namespace {

// Both directions of every pair of `n` nodes on `rails` rails, each
// measured by `gbps(from, to, rail)`, each transfer's own interval
// variation `cv`.
template <typename F>
std::vector<Measurement> Matrix(int n, int rails, F gbps, double cv = 0) {
  std::vector<Measurement> m;
  for (const Round& round : AllPairsRounds(n)) {
    for (auto [a, b] : round) {
      for (int r = 0; r < rails; ++r) {
        m.push_back({a, b, r, "tcp", gbps(a, b, r), false, cv});
        m.push_back({b, a, r, "tcp", gbps(b, a, r), false, cv});
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
  auto m = Matrix(5, 1, [](int from, int to, int) { return (from == 1 && to == 4) ? 3.0 : 10.0; });
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
  std::vector<Measurement> m = {{0, 1, 0, "rdma", 90}, {1, 0, 0, "rdma", 91}, {0, 2, 0, "tcp", 10},
                                {2, 0, 0, "tcp", 10},  {1, 2, 0, "tcp", 10},  {2, 1, 0, "tcp", 10}};
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
  EXPECT_EQ(ReferencesOf(m).at("tcp rr_lat").value, 10.0);  // the slow node is one of four
}

TEST(BlameTest, TheShareIsTunable) {
  // Node 0 low with 2 of 4 partners: not above the default half, but above
  // a stricter profile's 0.4.
  auto m = Matrix(
      5, 1, [](int from, int to, int) { return (from == 0 && (to == 1 || to == 2)) ? 1.0 : 10.0; });
  for (const Suspect& s : FindSuspects(m, {})) EXPECT_EQ(s.kind, Suspect::kLink);
  auto strict = FindSuspects(m, {0.90, 0.4});
  ASSERT_EQ(strict.size(), 1u);
  EXPECT_EQ(strict[0].kind, Suspect::kNode);
  EXPECT_EQ(strict[0].node, 0);
}

}  // namespace
}  // namespace nodeprobe::coordinator

namespace nodeprobe::coordinator {
namespace {

// Scatter of +-25% around 10, pseudo-random but deterministic, with no
// pattern by sender or receiver: a busy 2-core machine's TCP.
double Noisy(int from, int to, int salt = 0) {
  uint32_t h = static_cast<uint32_t>(from * 73856093 ^ to * 19349663 ^ salt * 83492791);
  h ^= h >> 13;
  h *= 0x5bd1e995;
  h ^= h >> 15;
  return 10.0 * (0.75 + (h % 1001) / 2000.0);
}

// No node or rail is blamed; a single unlucky measurement may still be a
// link suspect, which the cluster stage measures again before anything.
TEST(BlameNoiseTest, AHealthyButNoisyClusterBlamesNobody) {
  int links = 0;
  for (int salt = 0; salt < 20; ++salt) {
    // Each transfer's own 100 ms intervals vary by 12% (as the lab's do
    // under a CPU hog).
    auto m = Matrix(
        4, 1, [&](int from, int to, int) { return Noisy(from, to, salt); }, 0.12);
    for (const Suspect& s : FindSuspects(m, {})) {
      EXPECT_EQ(s.kind, Suspect::kLink) << "salt " << salt << " node " << s.node;
      ++links;
    }
  }
  EXPECT_LE(links, 3);  // of 20 runs x 12 measurements
}

TEST(BlameNoiseTest, AShapedNodeIsFoundThroughTheNoise) {
  for (int salt = 0; salt < 20; ++salt) {
    // Node 3's transmit side at 30% of the others, the noise on top.
    auto m = Matrix(
        4, 1,
        [&](int from, int to, int) { return Noisy(from, to, salt) * (from == 3 ? 0.3 : 1.0); },
        0.12);
    int nodes = 0;
    for (const Suspect& s : FindSuspects(m, {})) {
      if (s.kind == Suspect::kLink) continue;
      ++nodes;
      EXPECT_EQ(s.kind, Suspect::kNode);
      EXPECT_EQ(s.node, 3) << "salt " << salt;
    }
    EXPECT_EQ(nodes, 1) << "salt " << salt;
  }
}

TEST(BlameNoiseTest, TheReferenceIsNotTheBestPair) {
  // One lucky pair at 20 among 10s: the reference stays 10.
  auto m = Matrix(6, 1, [](int from, int to, int) { return from == 0 && to == 1 ? 20.0 : 10.0; });
  EXPECT_DOUBLE_EQ(ReferencesOf(m).at("tcp").value, 10.0);
  EXPECT_TRUE(FindSuspects(m, {}).empty());
}

TEST(PeerStatsTest, SpreadIsTheNoiseNotTheFault) {
  // A directional fault is part of its sender's median: no spread from it.
  std::vector<PeerSample> s;
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      if (a != b) s.push_back({a, b, a == 3 ? 3.0 : 10.0, 0});
    }
  }
  PeerReference ref = ReferenceOf(s);
  EXPECT_DOUBLE_EQ(ref.value, 10.0);
  EXPECT_DOUBLE_EQ(ref.spread, 0.0);
  EXPECT_EQ(ref.nodes, 4u);
  EXPECT_TRUE(LowAgainst(3.0, 0, ref, 0.9, 3));
  EXPECT_FALSE(LowAgainst(9.5, 0, ref, 0.9, 3));
  // A measurement's own noise widens what counts: 20% CV x 3 = 60%.
  EXPECT_FALSE(LowAgainst(5.0, 0.2, ref, 0.9, 3));
  EXPECT_TRUE(LowAgainstOther(5.0, 0.01, 10.0, 0.01, 0, 0.8, 3));
  EXPECT_FALSE(LowAgainstOther(7.0, 0.1, 10.0, 0.1, 0, 0.8, 3));
  EXPECT_DOUBLE_EQ(stats::Median({3, 1, 2, 10}), 2.5);
}

}  // namespace
}  // namespace nodeprobe::coordinator
