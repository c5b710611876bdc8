#include "probes/workload/placement.h"

#include <gtest/gtest.h>

namespace nodeprobe::workload {
namespace {

// 4 nodes x 2 ranks, tp 2 inside each node, pp 2, dp the rest (2): the
// acceptance lab's shape.
TEST(PlacementTest, TensorGroupsStayInANodeAndStagesTakeConsecutiveNodes) {
  WorkloadShape s;
  s.tp = 2;
  s.pp = 2;
  absl::StatusOr<Placement> pl = Place(s, 4, 2);
  ASSERT_TRUE(pl.ok()) << pl.status();
  EXPECT_EQ(pl->dp, 2);
  ASSERT_EQ(pl->size(), 8);
  for (int r = 0; r < 8; ++r) {
    const std::vector<int> tp = pl->Members(r, Group::kTp);
    ASSERT_EQ(tp.size(), 2u);
    EXPECT_EQ(pl->ranks[tp[0]].node, pl->ranks[tp[1]].node) << r;
  }
  // Stage 0 on nodes 0-1, stage 1 on nodes 2-3.
  EXPECT_EQ(pl->ranks[3].pp_index, 0);
  EXPECT_EQ(pl->ranks[4].pp_index, 1);
  EXPECT_EQ(pl->Members(1, Group::kPp), (std::vector<int>{1, 5}));
  EXPECT_EQ(pl->Members(0, Group::kDp), (std::vector<int>{0, 2}));
  EXPECT_EQ(pl->Members(7, Group::kDp), (std::vector<int>{5, 7}));
}

TEST(PlacementTest, DataParallelTakesTheRest) {
  WorkloadShape s;  // tp 1, pp 1
  absl::StatusOr<Placement> pl = Place(s, 3, 8);
  ASSERT_TRUE(pl.ok());
  EXPECT_EQ(pl->dp, 24);
  EXPECT_EQ(pl->Members(5, Group::kDp).size(), 24u);
}

TEST(PlacementTest, AShapeThatDoesNotFitNamesTheKey) {
  WorkloadShape s;
  s.tp = 8;
  s.pp = 4;
  absl::StatusOr<Placement> pl = Place(s, 2, 8);  // 16 ranks, 32 needed
  ASSERT_FALSE(pl.ok());
  EXPECT_NE(pl.status().message().find("workload.tp x pp x dp"), std::string::npos) << pl.status();
  s.pp = 1;
  s.tp = 4;
  pl = Place(s, 4, 2);  // tp 4 over nodes of 2 ranks
  ASSERT_FALSE(pl.ok());
  EXPECT_NE(pl.status().message().find("tp_across_nodes"), std::string::npos);
  s.tp_across_nodes = true;
  EXPECT_TRUE(Place(s, 4, 2).ok());
  WorkloadShape e;
  e.ep = 3;
  pl = Place(e, 2, 2);  // dp 4
  ASSERT_FALSE(pl.ok());
  EXPECT_NE(pl.status().message().find("workload.ep 3"), std::string::npos);
}

TEST(PlacementTest, ExpertGroupsAreBlocksOfTheDataParallelGroup) {
  WorkloadShape s;
  s.ep = 2;
  absl::StatusOr<Placement> pl = Place(s, 2, 2);
  ASSERT_TRUE(pl.ok());
  EXPECT_EQ(pl->Members(0, Group::kEp), (std::vector<int>{0, 1}));
  EXPECT_EQ(pl->Members(3, Group::kEp), (std::vector<int>{2, 3}));
}

}  // namespace
}  // namespace nodeprobe::workload
