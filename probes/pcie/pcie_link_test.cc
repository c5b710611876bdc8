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

TEST(ParsePciLinkWidthTest, OnlyTheSpecificationsWidths) {
  EXPECT_EQ(**ParsePciLinkWidth("16"), 16);
  EXPECT_FALSE(ParsePciLinkWidth("0").ok());  // link down or garbage, never healthy
  EXPECT_FALSE(ParsePciLinkWidth("x16").ok());
  EXPECT_FALSE(ParsePciLinkWidth("255").ok());
  EXPECT_FALSE(ParsePciLinkWidth("3").ok());
  EXPECT_FALSE(ParsePciLinkWidth("-4").ok());
}

TEST(ParsePciLinkSpeedTest, GarbageThatLooksNumericIsRejected) {
  for (const char* bad : {"nan GT/s", "inf GT/s", "-8.0 GT/s PCIe", "7.0 GT/s", "8.0 GT/s PCIx",
                          "8.0GT/s", "1e400 GT/s"}) {
    EXPECT_FALSE(ParsePciLinkSpeed(bad).ok()) << bad;
  }
  EXPECT_DOUBLE_EQ(**ParsePciLinkSpeed("5 GT/s"), 5.0);      // 4.x kernels
  EXPECT_DOUBLE_EQ(**ParsePciLinkSpeed("64.0 GT/s PCIe"), 64.0);
}

// A config space with the PCI Express capability at 0x60 (after a power
// management capability at 0x40): Link Capabilities say 16 GT/s x16. The
// full 256 bytes are written, then cut to `size` (a short read of the same
// device): writing past a short string was a heap overflow.
std::string ConfigWithLinkCaps(uint32_t link_caps, size_t size = 256) {
  std::string c(256, '\0');
  c[0x06] = 0x10;        // status: capability list present
  c[0x34] = 0x40;        // first capability
  c[0x40] = 0x01;        // power management
  c[0x41] = 0x60;        // -> next
  c[0x60] = 0x10;        // PCI Express
  c[0x61] = 0x00;        // end of list
  for (int i = 0; i < 4; ++i) c[0x6C + i] = static_cast<char>((link_caps >> (8 * i)) & 0xFF);
  c.resize(size);
  return c;
}

TEST(ParseLinkCapabilityTest, ReadsMaximumSpeedAndWidthFromLinkCapabilities) {
  auto cap = ParseLinkCapability(ConfigWithLinkCaps(0x4 | (16 << 4)));
  ASSERT_TRUE(cap.ok()) << cap.status();
  EXPECT_DOUBLE_EQ(cap->speed_gts, 16.0);
  EXPECT_EQ(cap->width, 16);
  cap = ParseLinkCapability(ConfigWithLinkCaps(0x3 | (8 << 4)));
  EXPECT_DOUBLE_EQ(cap->speed_gts, 8.0);
  EXPECT_EQ(cap->width, 8);
}

TEST(ParseLinkCapabilityTest, AHeaderOnlyReadSaysWhyItIsUnknown) {
  auto cap = ParseLinkCapability(ConfigWithLinkCaps(0x4 | (16 << 4), 64));
  EXPECT_EQ(cap.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(cap.status().message().find("beyond the 64 readable bytes"), std::string::npos)
      << cap.status();
  EXPECT_EQ(ParseLinkCapability(std::string(16, '\0')).status().code(),
            absl::StatusCode::kFailedPrecondition);
  std::string no_list(256, '\0');
  EXPECT_EQ(ParseLinkCapability(no_list).status().code(), absl::StatusCode::kNotFound);
  // A list that loops on itself ends.
  std::string loop = ConfigWithLinkCaps(0);
  loop[0x41] = 0x40;
  EXPECT_FALSE(ParseLinkCapability(loop).ok());
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

TEST(PciePayloadTest, IsTheLinkAfterEncodingAndTlpOverhead) {
  // Gen4 x16: 16 x 16 x 128/130 / 8 = 31.5 GB/s of line rate, x 256/280.
  EXPECT_NEAR(PciePayloadGBps(16.0, 16), 31.508 * 256 / 280, 0.001);
  // Gen5 x16 (H100/H200): 63.0 GB/s of line rate, 57.6 of payload.
  EXPECT_NEAR(PciePayloadGBps(32.0, 16), 57.61, 0.01);
  // A Gen5 device trained at x8 has half of it.
  EXPECT_NEAR(PciePayloadGBps(32.0, 8), PciePayloadGBps(32.0, 16) / 2, 1e-9);
}

}  // namespace
}  // namespace nodeprobe::pcie
