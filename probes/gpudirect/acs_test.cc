// ACS parsing on config-space images built from the PCIe specification's
// layout: extended capability header at 0x100 = id[15:0] | version[19:16] |
// next[31:20]; ACS (id 0x000D) capability register at +4, control at +6.
#include "probes/gpudirect/acs.h"

#include "gtest/gtest.h"

namespace nodeprobe::gpudirect {
namespace {

void Put32(std::string& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}

// 4 KiB config space: AER (id 0x0001) at 0x100 -> ACS at 0x148, or no ACS.
std::string ConfigSpace(bool with_acs, uint16_t control) {
  std::string b(4096, '\0');
  Put32(b, 0x100, 0x0001 | 1u << 16 | (with_acs ? 0x148u : 0u) << 20);
  if (with_acs) {
    Put32(b, 0x148, 0x000D | 1u << 16);            // last capability
    Put32(b, 0x14c, 0x005f | uint32_t{control} << 16);  // cap: SV RR CR UF EC
  }
  return b;
}

TEST(ParseAcsTest, FindsAcsBehindAnotherCapability) {
  auto acs = ParseAcs(ConfigSpace(true, 0x000d));  // SV + RR + CR
  ASSERT_TRUE(acs.ok()) << acs.status();
  EXPECT_TRUE(acs->present);
  EXPECT_EQ(acs->capability, 0x005f);
  EXPECT_EQ(acs->control, 0x000d);
  EXPECT_TRUE(AcsBlocksPeerToPeer(acs->control));
  EXPECT_EQ(DescribeAcsControl(acs->control),
            "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd- EgressCtrl- "
            "DirectTrans-");
}

TEST(ParseAcsTest, AcsPresentButDisabledDoesNotBlock) {
  auto acs = ParseAcs(ConfigSpace(true, 0x0000));
  ASSERT_TRUE(acs.ok());
  EXPECT_TRUE(acs->present);
  EXPECT_FALSE(AcsBlocksPeerToPeer(acs->control));
  // Upstream Forwarding alone does not redirect peer traffic, nor does
  // Source Validation (it checks requester IDs) or Translation Blocking.
  EXPECT_FALSE(AcsBlocksPeerToPeer(1u << 4));
  EXPECT_FALSE(AcsBlocksPeerToPeer(1u << 0));
  EXPECT_FALSE(AcsBlocksPeerToPeer(1u << 0 | 1u << 1 | 1u << 4 | 1u << 6));
  // Each redirecting bit alone does: Request, Completion, Egress Control.
  for (int bit : {2, 3, 5}) EXPECT_TRUE(AcsBlocksPeerToPeer(1u << bit)) << bit;
}

TEST(ParseAcsTest, NoAcsCapability) {
  auto acs = ParseAcs(ConfigSpace(false, 0));
  ASSERT_TRUE(acs.ok());
  EXPECT_FALSE(acs->present);
  auto empty = ParseAcs(std::string(4096, '\0'));
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->present);
}

TEST(ParseAcsTest, UnprivilegedReadIsFailedPrecondition) {
  EXPECT_EQ(ParseAcs(std::string(64, '\0')).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(ParseAcs(std::string(256, '\0')).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ParseAcsTest, LoopingCapabilityListIsDataLoss) {
  std::string b(4096, '\0');
  Put32(b, 0x100, 0x0001 | 0x100u << 20);  // points at itself
  EXPECT_EQ(ParseAcs(b).status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace nodeprobe::gpudirect
