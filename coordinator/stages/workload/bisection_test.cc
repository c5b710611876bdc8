#include "coordinator/stages/workload/bisection.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <set>

namespace nodeprobe::coordinator {
namespace {

// A simulated fabric of `n` nodes, one unit each, in leaves of `leaf`
// consecutive nodes. A job on a set of nodes is slow when it uses the
// slow element: a slow node's link (the node and any other node), or a
// leaf's uplink (a node inside the leaf and one outside).
struct Fabric {
  int n = 1024;
  int slow_node = -1;
  int slow_leaf = -1;
  int leaf = 4;
  int runs = 0;
  bool Slow(const std::vector<int>& nodes) {
    ++runs;
    if (slow_node >= 0) {
      return nodes.size() >= 2 && std::find(nodes.begin(), nodes.end(), slow_node) != nodes.end();
    }
    bool in = false, out = false;
    for (int x : nodes) (x / leaf == slow_leaf ? in : out) = true;
    return in && out;
  }
  std::vector<std::vector<int>> Units() const {
    std::vector<std::vector<int>> u;
    for (int i = 0; i < n; ++i) u.push_back({i});
    return u;
  }
};

int Budget(int n) { return static_cast<int>(2 * std::log2(n)); }

TEST(BisectionTest, ASlowNodeAnywhereAmong1024IsNamedAloneWithin2Log2NRuns) {
  int most = 0;
  for (int x = 0; x < 1024; ++x) {
    Fabric f{.slow_node = x};
    const Bisection b = Bisect(
        f.Units(), [&](const std::vector<int>& n) { return f.Slow(n); }, 1000);
    ASSERT_EQ(b.kind, Bisection::kSet) << x;
    ASSERT_EQ(b.set, std::vector<int>{x});
    ASSERT_LE(static_cast<int>(b.runs.size()), Budget(1024)) << x;
    ASSERT_EQ(static_cast<int>(b.runs.size()), f.runs);
    most = std::max(most, f.runs);
  }
  EXPECT_EQ(most, Budget(1024));  // the worst place costs the whole budget
}

TEST(BisectionTest, ASlowLeafUplinkAnywhereIsTheTwoGroupsWhoseCombinationIsSlow) {
  for (int leaf : {4, 32}) {
    for (int l = 0; l < 1024 / leaf; ++l) {
      Fabric f{.slow_leaf = l, .leaf = leaf};
      const Bisection b = Bisect(
          f.Units(), [&](const std::vector<int>& n) { return f.Slow(n); }, 1000);
      ASSERT_EQ(b.kind, Bisection::kBetween) << leaf << " " << l;
      std::vector<int> nodes(static_cast<size_t>(leaf));
      std::iota(nodes.begin(), nodes.end(), l * leaf);
      EXPECT_TRUE(b.a == nodes || b.b == nodes) << leaf << " " << l;
      // The other side is its sibling of the same size: their link.
      EXPECT_EQ(b.a.size(), b.b.size());
      ASSERT_LE(static_cast<int>(b.runs.size()), Budget(1024)) << leaf << " " << l;
    }
  }
}

TEST(BisectionTest, EightNodesInTwoLeavesOfFourNameTheLinkBetweenTheLeavesInSixRuns) {
  Fabric f{.n = 8, .slow_leaf = 0, .leaf = 4};
  const Bisection b = Bisect(
      f.Units(), [&](const std::vector<int>& n) { return f.Slow(n); }, 6);
  ASSERT_EQ(b.kind, Bisection::kBetween);
  EXPECT_EQ(b.a, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(b.b, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(b.runs.size(), 6u);
}

TEST(BisectionTest, UnitsOfSeveralNodesStayWholeAndARunThatFailsStopsTheSearch) {
  // Four replicas of two nodes: node 5's link is slow.
  Fabric f{.n = 8, .slow_node = 5};
  const std::vector<std::vector<int>> units = {{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  const Bisection b = Bisect(
      units, [&](const std::vector<int>& n) { return f.Slow(n); }, 100);
  ASSERT_EQ(b.kind, Bisection::kSet);
  EXPECT_EQ(b.set, (std::vector<int>{4, 5}));  // its replica: the smallest runnable set
  for (const Bisection::Run& r : b.runs) EXPECT_EQ(r.nodes.size() % 2, 0u);
  int calls = 0;
  const Bisection stopped = Bisect(
      units,
      [&](const std::vector<int>&) -> std::optional<bool> {
        return ++calls == 2 ? std::nullopt : std::optional<bool>(false);
      },
      100);
  EXPECT_EQ(stopped.kind, Bisection::kUnresolved);
  EXPECT_EQ(stopped.runs.size(), 1u);
}

}  // namespace
}  // namespace nodeprobe::coordinator
