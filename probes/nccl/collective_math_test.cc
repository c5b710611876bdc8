#include "probes/nccl/collective_math.h"

#include <cstring>
#include <set>

#include <vector>

#include <random>

#include <algorithm>

#include <gtest/gtest.h>

namespace nodeprobe::nccl {
namespace {

TEST(SweepSizes, MultipliesFromMinToMaxLikeNcclTests) {
  v1::CollectiveOptions o;
  o.set_min_bytes(8);
  o.set_max_bytes(128);
  o.set_step_factor(2);
  EXPECT_EQ(SweepSizes(o), (std::vector<uint64_t>{8, 16, 32, 64, 128}));
  o.set_max_bytes(100);  // not a step: the sweep stops below it
  EXPECT_EQ(SweepSizes(o), (std::vector<uint64_t>{8, 16, 32, 64}));
  o.add_sizes(4096);
  o.add_sizes(64);
  EXPECT_EQ(SweepSizes(o), (std::vector<uint64_t>{64, 4096}));  // a list wins, sorted
}

TEST(SweepSizes, DefaultsAreTheDocumentedOnes) {
  const v1::CollectiveOptions o = WithDefaults({});
  EXPECT_EQ(o.collectives_size(), 7);
  EXPECT_EQ(SweepSizes(o).front(), 1u << 20);
  EXPECT_EQ(SweepSizes(o).back(), 256u << 20);
  EXPECT_EQ(o.iters(), 20u);
  EXPECT_EQ(o.warmup_iters(), 5u);
}

TEST(ValidateOptions, NamesTheBadField) {
  v1::CollectiveOptions o = WithDefaults({});
  o.add_collectives("allreduce");
  EXPECT_NE(ValidateOptions(o).message().find("unknown collective 'allreduce'"),
            std::string::npos);
  o = WithDefaults({});
  o.set_min_bytes(1 << 20);
  o.set_max_bytes(1024);
  EXPECT_FALSE(ValidateOptions(o).ok());
  EXPECT_TRUE(ValidateOptions(WithDefaults({})).ok());
}

// nccl-tests' getCollByteCount: the counts behind a printed size.
TEST(ShapeOf, FollowsNcclTestsCounts) {
  const CollectiveShape ag = ShapeOf("all_gather", 1024, 4);
  EXPECT_EQ(ag.param, 64u);  // per rank
  EXPECT_EQ(ag.send, 64u);
  EXPECT_EQ(ag.recv, 256u);
  EXPECT_EQ(ag.bytes, 1024u);
  const CollectiveShape rs = ShapeOf("reduce_scatter", 1024, 4);
  EXPECT_EQ(rs.send, 256u);
  EXPECT_EQ(rs.recv, 64u);
  // 250 floats over 3 peers: 83, rounded down to whole 16 bytes: 80.
  const CollectiveShape a2a = ShapeOf("alltoall", 1000, 3);
  EXPECT_EQ(a2a.param, 80u);
  EXPECT_EQ(a2a.bytes, 80u * 3 * 4);
  // 6 ranks of a 1 MiB all_gather: 262144 / 6 = 43690 -> 43688 per rank.
  EXPECT_EQ(ShapeOf("all_gather", 1 << 20, 6).param, 43688u);
  EXPECT_EQ(ShapeOf("reduce_scatter", 1 << 20, 6).send, 43688u * 6);
  EXPECT_EQ(ShapeOf("all_reduce", 1024, 4).param, 256u);
}

TEST(ExpectedValue, IsWhatEachCollectiveDefines) {
  const int n = 4;
  // all_reduce: the sum over ranks of (r + i) % 17 + 1; element 0: 1+2+3+4.
  const CollectiveShape ar = ShapeOf("all_reduce", 1024, n);
  EXPECT_EQ(*ExpectedValue("all_reduce", ar, n, 2, 0), 10.0f);
  EXPECT_EQ(*ExpectedValue("all_reduce", ar, n, 2, 15), 16.0f + 17 + 1 + 2);
  EXPECT_FALSE(ExpectedValue("reduce", ar, n, 1, 0).has_value());
  EXPECT_EQ(*ExpectedValue("reduce", ar, n, 0, 0), 10.0f);
  EXPECT_EQ(*ExpectedValue("broadcast", ar, n, 3, 5), UniqueInputValue(0, 5));
  // sendrecv: from the previous rank.
  EXPECT_EQ(*ExpectedValue("sendrecv", ar, n, 0, 5), UniqueInputValue(3, 5));
  const CollectiveShape ag = ShapeOf("all_gather", 1024, n);
  EXPECT_EQ(*ExpectedValue("all_gather", ag, n, 0, 64 * 2 + 1), UniqueInputValue(2, 1));
  const CollectiveShape a2a = ShapeOf("alltoall", 1024, n);
  // Rank 1's chunk from rank 3 is rank 3's chunk for rank 1.
  EXPECT_EQ(*ExpectedValue("alltoall", a2a, n, 1, 64 * 3 + 7), UniqueInputValue(3, 64 * 1 + 7));
  const CollectiveShape rs = ShapeOf("reduce_scatter", 1024, n);
  EXPECT_EQ(*ExpectedValue("reduce_scatter", rs, n, 2, 0),
            *ExpectedValue("all_reduce", ar, n, 0, 2 * 64));
}

// Data that is only moved is unique to its rank at every element: chunks
// of ranks 17 apart swapped, or an in-place broadcast that missed its write
// on rank 17 (its own input left), no longer read as correct.
TEST(ExpectedValue, MovedDataIsUniqueToItsRank) {
  const int n = 40;
  const CollectiveShape ag = ShapeOf("all_gather", 40 * 256, n);
  for (uint64_t i = 0; i < ag.param; ++i) {
    EXPECT_NE(*ExpectedValue("all_gather", ag, n, 0, 17 * ag.param + i),
              *ExpectedValue("all_gather", ag, n, 0, 0 * ag.param + i))
        << i;
  }
  const CollectiveShape bc = ShapeOf("broadcast", 4096, n);
  for (uint64_t i = 0; i < bc.param; ++i) {
    EXPECT_NE(InputFor("broadcast", 17, i), *ExpectedValue("broadcast", bc, n, 17, i)) << i;
    EXPECT_EQ(InputFor("broadcast", 0, i), *ExpectedValue("broadcast", bc, n, 17, i)) << i;
  }
  // For one element, every rank of a large job holds its own value.
  std::set<uint32_t> seen;
  for (int r = 0; r < 100000; ++r) {
    const float v = UniqueInputValue(r, 12345);
    uint32_t bits = 0;
    memcpy(&bits, &v, sizeof(bits));
    EXPECT_TRUE(seen.insert(bits).second) << r;
    EXPECT_TRUE(v >= 1.0f && v < 2.0f) << v;
  }
  // The reducing collectives keep the exact small integers.
  EXPECT_EQ(InputFor("all_reduce", 3, 2), InputValue(3, 2));
}

// 2048 simulated ranks reduced in float, in three orders (ascending, a
// shuffle, pairwise as a tree does): every element exact, so the data check
// never calls a correct result wrong at scale.
TEST(ExpectedValue, SumsStayExactForThousandsOfRanksInAnyOrder) {
  for (int n : {2048, 4097, 100000}) {
    std::vector<int> order(n);
    for (int r = 0; r < n; ++r) order[r] = r;
    std::mt19937 rng(n);
    std::vector<int> shuffled = order;
    std::shuffle(shuffled.begin(), shuffled.end(), rng);
    const CollectiveShape ar = ShapeOf("all_reduce", 4096, n);
    for (uint64_t i = 0; i < 40; ++i) {
      const float want = *ExpectedValue("all_reduce", ar, n, 0, i);
      float ascending = 0, mixed = 0;
      for (int r : order) ascending += InputValue(r, i);
      for (int r : shuffled) mixed += InputValue(r, i);
      std::vector<float> tree;
      for (int r = 0; r < n; ++r) tree.push_back(InputValue(r, i));
      while (tree.size() > 1) {
        std::vector<float> next;
        for (size_t k = 0; k + 1 < tree.size(); k += 2) next.push_back(tree[k] + tree[k + 1]);
        if (tree.size() % 2) next.push_back(tree.back());
        tree = std::move(next);
      }
      EXPECT_EQ(ascending, want) << n << " ranks, element " << i;
      EXPECT_EQ(mixed, want) << n << " ranks, element " << i;
      EXPECT_EQ(tree[0], want) << n << " ranks, element " << i;
    }
  }
}

TEST(AlgBw, IsBytesOverTime) {
  EXPECT_DOUBLE_EQ(AlgBwGbps(1000000000, 1e6), 1.0);  // 1 GB in 1 s
  EXPECT_EQ(AlgBwGbps(1, 0), 0);
}

}  // namespace
}  // namespace nodeprobe::nccl
