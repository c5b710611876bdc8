#include "coordinator/stages/cluster/pairing.h"

#include <set>

#include "gtest/gtest.h"

namespace nodeprobe::coordinator {
namespace {

// Every unordered pair exactly once, no node twice in a round, and the
// round count of the circle method.
TEST(PairingTest, AllPairsMeetsEveryPairOnceInTheFewestRounds) {
  for (int n = 2; n <= 64; ++n) {
    const std::vector<Round> rounds = AllPairsRounds(n);
    ASSERT_EQ(static_cast<int>(rounds.size()), n % 2 == 0 ? n - 1 : n) << "n=" << n;
    std::set<std::pair<int, int>> met;
    for (const Round& round : rounds) {
      std::set<int> busy;
      EXPECT_EQ(static_cast<int>(round.size()), n / 2) << "n=" << n;
      for (auto [a, b] : round) {
        ASSERT_NE(a, b);
        ASSERT_GE(a, 0);
        ASSERT_LT(b, n);
        ASSERT_LT(a, n);
        EXPECT_TRUE(busy.insert(a).second) << "n=" << n << ": node " << a << " twice in a round";
        EXPECT_TRUE(busy.insert(b).second) << "n=" << n << ": node " << b << " twice in a round";
        EXPECT_TRUE(met.insert({std::min(a, b), std::max(a, b)}).second)
            << "n=" << n << ": pair " << a << "," << b << " met twice";
      }
    }
    EXPECT_EQ(static_cast<int>(met.size()), n * (n - 1) / 2) << "n=" << n;
  }
}

TEST(PairingTest, RingMeetsEachNeighbourOnceAndNobodyTwiceInARound) {
  for (int n = 2; n <= 64; ++n) {
    const std::vector<Round> rounds = RingRounds(n);
    ASSERT_EQ(static_cast<int>(rounds.size()), n == 2 ? 1 : (n % 2 == 0 ? 2 : 3)) << "n=" << n;
    std::set<std::pair<int, int>> met;
    for (const Round& round : rounds) {
      std::set<int> busy;
      for (auto [a, b] : round) {
        EXPECT_EQ((a + 1) % n, b) << "n=" << n << ": not neighbours";
        EXPECT_TRUE(busy.insert(a).second) << "n=" << n;
        EXPECT_TRUE(busy.insert(b).second) << "n=" << n;
        met.insert({std::min(a, b), std::max(a, b)});
      }
    }
    EXPECT_EQ(static_cast<int>(met.size()), n == 2 ? 1 : n) << "n=" << n;
  }
}

TEST(PairingTest, FewerThanTwoNodesHaveNoRounds) {
  EXPECT_TRUE(AllPairsRounds(0).empty());
  EXPECT_TRUE(AllPairsRounds(1).empty());
  EXPECT_TRUE(RingRounds(1).empty());
}

}  // namespace
}  // namespace nodeprobe::coordinator
