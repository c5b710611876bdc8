#include "probes/rdma_devices/rdma_sysfs_parser.h"

#include "gtest/gtest.h"

namespace nodeprobe::rdma {
namespace {

TEST(ParsePortStateTest, ParsesKernelStates) {
  auto s = ParsePortState("4: ACTIVE");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->code, 4);
  EXPECT_EQ(s->name, "ACTIVE");
  EXPECT_EQ(ParsePortState("1: DOWN")->name, "DOWN");
  EXPECT_EQ(ParsePortState("2: INIT")->name, "INIT");
}

TEST(ParsePortStateTest, RejectsPhysicalStateAndGarbage) {
  EXPECT_EQ(ParsePortState("5: LinkUp").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(ParsePortState("").ok());
  EXPECT_FALSE(ParsePortState("ACTIVE").ok());
  EXPECT_FALSE(ParsePortState("9: ACTIVE").ok());
}

TEST(ParsePhysStateTest, RejectsLogicalStateName) {
  EXPECT_EQ(ParsePhysState("5: LinkUp")->name, "LinkUp");
  EXPECT_EQ(ParsePhysState("3: Disabled")->name, "Disabled");
  EXPECT_EQ(ParsePhysState("7: Phy Test")->name, "Phy Test");
  EXPECT_EQ(ParsePhysState("4: ACTIVE").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ParseRateGbpsTest, ParsesRatesFromFixtures) {
  EXPECT_DOUBLE_EQ(*ParseRateGbps("56 Gb/sec (4X FDR)"), 56.0);
  EXPECT_DOUBLE_EQ(*ParseRateGbps("40 Gb/sec (4X QDR)"), 40.0);
  EXPECT_DOUBLE_EQ(*ParseRateGbps("10 Gb/sec (4X)"), 10.0);
  EXPECT_DOUBLE_EQ(*ParseRateGbps("2.5 Gb/sec (1X SDR)"), 2.5);
  // A good rate followed by a NUL and garbage is not the kernel's line.
  EXPECT_FALSE(ParseRateGbps(std::string("100 Gb/sec (4X EDR)\0junk", 25)).ok());
  EXPECT_FALSE(ParseRateGbps("100 Gb/sec (4X EDR) and more").ok());
  EXPECT_FALSE(ParseRateGbps("100 Gb/secs").ok());
  EXPECT_FALSE(ParseRateGbps("fast").ok());
  EXPECT_FALSE(ParseRateGbps("56 Mb/sec").ok());
  // Only the kernel's own number format: no exponent, sign or hex.
  for (const char* bad : {"1e2 Gb/sec (4X)", "+56 Gb/sec", "0x38 Gb/sec", "56. Gb/sec", ".5 Gb/sec"}) {
    EXPECT_FALSE(ParseRateGbps(bad).ok()) << bad;
  }
}

TEST(ParseGidTypeTest, ParsesBothTypes) {
  EXPECT_EQ(*ParseGidType("RoCE v2"), GidType::kRoceV2);
  EXPECT_EQ(*ParseGidType("IB/RoCE v1"), GidType::kIbRoceV1);
  EXPECT_FALSE(ParseGidType("RoCE v3").ok());
}

TEST(ClassifyGidTest, TellsIpv4MappedLinkLocalAndGlobal) {
  EXPECT_EQ(*ClassifyGid("fe80:0000:0000:0000:0002:c903:00f9:bfa1"),
            GidFamily::kLinkLocal);
  EXPECT_EQ(*ClassifyGid("0000:0000:0000:0000:0000:ffff:0a00:0001"),
            GidFamily::kIpv4Mapped);
  EXPECT_EQ(*ClassifyGid("fd00:0000:0000:0000:0000:0000:0000:0001"),
            GidFamily::kIpv6);
  EXPECT_FALSE(ClassifyGid("not-a-gid").ok());
  EXPECT_EQ(GidIpv4Address("0000:0000:0000:0000:0000:ffff:0a00:0001"), "10.0.0.1");
  EXPECT_EQ(GidIpv4Address("fe80:0000:0000:0000:0002:c903:00f9:bfa1"), "");
}

TEST(ParseCounterTest, NoPmaIsUnavailableNotError) {
  auto v = ParseCounter("N/A (no PMA)");
  ASSERT_TRUE(v.ok());
  EXPECT_FALSE(v->has_value());
  EXPECT_EQ(**ParseCounter("4294967295"), 4294967295u);
  EXPECT_FALSE(ParseCounter("-1").ok());
  EXPECT_FALSE(ParseCounter("").ok());
}

TEST(ParseLidTest, ParsesHex) {
  EXPECT_EQ(*ParseLid("0x3a4"), 0x3a4u);
  EXPECT_EQ(*ParseLid("0x0"), 0u);
  EXPECT_FALSE(ParseLid("932").ok());
}

}  // namespace
}  // namespace nodeprobe::rdma
