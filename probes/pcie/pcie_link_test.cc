#include "probes/pcie/pcie_link.h"

#include "gtest/gtest.h"

namespace nodeprobe::pcie {
namespace {

TEST(ParsePciLinkSpeedTest, ParsesKernelFormats) {
  EXPECT_DOUBLE_EQ(**ParsePciLinkSpeed("8.0 GT/s PCIe"), 8.0);
  EXPECT_DOUBLE_EQ(**ParsePciLinkSpeed("2.5 GT/s"), 2.5);
  EXPECT_DOUBLE_EQ(**ParsePciLinkSpeed("32.0 GT/s PCIe"), 32.0);
}

TEST(ParsePciLinkSpeedTest, UnknownIsNotAFailure) {
  EXPECT_FALSE(ParsePciLinkSpeed("Unknown").value().has_value());
  EXPECT_FALSE(ParsePciLinkSpeed("Unknown speed").value().has_value());
  EXPECT_FALSE(ParsePciLinkSpeed("fast").ok());
  EXPECT_FALSE(ParsePciLinkSpeed("").ok());
}

TEST(ParsePciLinkWidthTest, ZeroIsUnknown) {
  EXPECT_EQ(**ParsePciLinkWidth("16"), 16);
  EXPECT_FALSE(ParsePciLinkWidth("0").value().has_value());
  EXPECT_FALSE(ParsePciLinkWidth("x16").ok());
  EXPECT_FALSE(ParsePciLinkWidth("255").ok());
}

TEST(ParsePciClassTest, ParsesHex) {
  EXPECT_EQ(*ParsePciClass("0x030200"), 0x030200u);
  EXPECT_EQ(*ParsePciId("0x10de"), 0x10de);
  EXPECT_FALSE(ParsePciClass("030200").ok());
}

TEST(PcieBandwidthTest, MatchesTheSpecificationsPerGeneration) {
  EXPECT_EQ(PcieGeneration(16.0), 4);
  EXPECT_EQ(PcieGeneration(7.0), 0);
  // Gen1 x1: 2.5 GT/s × 8/10 / 8 = 0.25 GB/s.
  EXPECT_DOUBLE_EQ(PcieBandwidthGBps(2.5, 1), 0.25);
  // Gen3 x16: 8 × 16 × 128/130 / 8 = 15.75 GB/s (hwloc prints 15.753846).
  EXPECT_NEAR(PcieBandwidthGBps(8.0, 16), 15.753846, 1e-6);
  // Gen5 x16: 63.015 GB/s.
  EXPECT_NEAR(PcieBandwidthGBps(32.0, 16), 63.0154, 1e-3);
}

}  // namespace
}  // namespace nodeprobe::pcie
