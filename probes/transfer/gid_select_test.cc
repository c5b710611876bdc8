// GID selection on the GID table of a captured port (hwloc's mlx4_0, read
// through the real sysfs reader) and on RoCE variants of it.
#include "probes/transfer/gid_select.h"

#include "gtest/gtest.h"
#include "platform/file_tree.h"
#include "platform/rdma_sysfs.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

std::vector<GidCandidate> TableOf(const platform::RawRdmaPort& port) {
  std::vector<GidCandidate> out;
  for (const platform::RawGid& g : port.gids) {
    GidCandidate c;
    c.index = g.index;
    c.gid = g.gid.value.ok() ? *g.gid.value : "";
    c.type = g.type.value.ok() ? *g.type.value : "";
    c.netdev = g.netdev.value.ok() ? *g.netdev.value : "";
    out.push_back(c);
  }
  return out;
}

TEST(SelectGidTest, InfiniBandCaptureUsesLidAddressing) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  auto devs = platform::ReadRdmaDevices(platform::FileTree((*host)->sys_root));
  ASSERT_TRUE(devs.ok());
  std::vector<GidCandidate> table = TableOf((*devs)[0].ports[0]);
  ASSERT_FALSE(table.empty());
  EXPECT_EQ(table[0].gid.substr(0, 4), "fe80");
  auto choice = SelectGid(table, "InfiniBand", "ib0", {}, std::nullopt);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->index, 0u);
  EXPECT_NE(choice->reason.find("LID"), std::string::npos);
}

// A RoCE port as mlx5 drivers lay it out: per address, a v1 and a v2 entry;
// index 0/1 are link-local; eth2 carries 10.0.0.5, eth3 10.0.1.5.
std::vector<GidCandidate> RoceTable() {
  return {
      {0, "fe80:0000:0000:0000:0202:c9ff:fef9:bfa1", "IB/RoCE v1", "eth2"},
      {1, "fe80:0000:0000:0000:0202:c9ff:fef9:bfa1", "RoCE v2", "eth2"},
      {2, "0000:0000:0000:0000:0000:ffff:0a00:0005", "IB/RoCE v1", "eth2"},
      {3, "0000:0000:0000:0000:0000:ffff:0a00:0005", "RoCE v2", "eth2"},
      {4, "0000:0000:0000:0000:0000:ffff:0a00:0105", "IB/RoCE v1", "eth3"},
      {5, "0000:0000:0000:0000:0000:ffff:0a00:0105", "RoCE v2", "eth3"},
  };
}

TEST(SelectGidTest, RoceChoosesV2EntryOfTheRoutingInterface) {
  auto choice = SelectGid(RoceTable(), "Ethernet", "eth2", {"10.0.0.5"}, std::nullopt);
  ASSERT_TRUE(choice.ok()) << choice.status();
  EXPECT_EQ(choice->index, 3u);
  EXPECT_EQ(choice->type, "RoCE v2");
  EXPECT_NE(choice->reason.find("10.0.0.5"), std::string::npos);
  auto other = SelectGid(RoceTable(), "Ethernet", "eth3", {"10.0.1.5"}, std::nullopt);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->index, 5u);
}

TEST(SelectGidTest, NeverPicksLinkLocalEvenWhenItIsTheOnlyV2) {
  std::vector<GidCandidate> table = RoceTable();
  table.resize(2);
  auto choice = SelectGid(table, "Ethernet", "eth2", {"10.0.0.5"}, std::nullopt);
  EXPECT_EQ(choice.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(choice.status().message().find("--gid-index"), std::string::npos);
}

TEST(SelectGidTest, AddressMustBelongToTheInterface) {
  auto choice = SelectGid(RoceTable(), "Ethernet", "eth2", {"10.0.9.9"}, std::nullopt);
  EXPECT_FALSE(choice.ok());
  EXPECT_NE(choice.status().message().find("3=10.0.0.5"), std::string::npos);
}

TEST(SelectGidTest, ExplicitIndexWinsAndMustExist) {
  auto choice = SelectGid(RoceTable(), "Ethernet", "eth2", {"10.0.0.5"}, 1u);
  ASSERT_TRUE(choice.ok());
  EXPECT_EQ(choice->index, 1u);
  EXPECT_EQ(SelectGid(RoceTable(), "Ethernet", "eth2", {}, 42u).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CheckGidTypesAgreeTest, RefusesMixedTypes) {
  EXPECT_TRUE(CheckGidTypesAgree("RoCE v2", "RoCE v2").ok());
  EXPECT_EQ(CheckGidTypesAgree("RoCE v2", "IB/RoCE v1").code(),
            absl::StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace nodeprobe::transfer
