// File: collective_math_test.cc
#include "probes/nccl/collective_math.h"

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
  const CollectiveShape a2a = ShapeOf("alltoall", 1000, 3);  // 250 floats, 83 per peer
  EXPECT_EQ(a2a.param, 83u);
  EXPECT_EQ(a2a.bytes, 83u * 3 * 4);
  EXPECT_EQ(ShapeOf("all_reduce", 1024, 4).param, 256u);
}

TEST(ExpectedValue, IsWhatEachCollectiveDefines) {
  const int n = 4;
  // all_reduce: sum over ranks of (r+1) x k = k x 10.
  const CollectiveShape ar = ShapeOf("all_reduce", 1024, n);
  EXPECT_EQ(*ExpectedValue("all_reduce", ar, n, 2, 0), 10.0f);
  EXPECT_EQ(*ExpectedValue("all_reduce", ar, n, 2, 1), 20.0f);
  EXPECT_FALSE(ExpectedValue("reduce", ar, n, 1, 0).has_value());
  EXPECT_EQ(*ExpectedValue("reduce", ar, n, 0, 0), 10.0f);
  EXPECT_EQ(*ExpectedValue("broadcast", ar, n, 3, 5), InputValue(0, 5));
  EXPECT_EQ(*ExpectedValue("sendrecv", ar, n, 0, 5), InputValue(3, 5));  // from the previous rank
  const CollectiveShape ag = ShapeOf("all_gather", 1024, n);
  EXPECT_EQ(*ExpectedValue("all_gather", ag, n, 0, 64 * 2 + 1), InputValue(2, 1));
  const CollectiveShape a2a = ShapeOf("alltoall", 1024, n);
  // Rank 1's chunk from rank 3 is rank 3's chunk for rank 1.
  EXPECT_EQ(*ExpectedValue("alltoall", a2a, n, 1, 64 * 3 + 7), InputValue(3, 64 * 1 + 7));
  const CollectiveShape rs = ShapeOf("reduce_scatter", 1024, n);
  EXPECT_EQ(*ExpectedValue("reduce_scatter", rs, n, 2, 0),
            *ExpectedValue("all_reduce", ar, n, 0, 2 * 64));
}

TEST(AlgBw, IsBytesOverTime) {
  EXPECT_DOUBLE_EQ(AlgBwGbps(1000000000, 1e6), 1.0);  // 1 GB in 1 s
  EXPECT_EQ(AlgBwGbps(1, 0), 0);
}

}  // namespace
}  // namespace nodeprobe::nccl
