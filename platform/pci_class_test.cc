#include "platform/pci_class.h"

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

// NCCL's rule: the base class makes a GPU; 0x0380 (an H100 SXM's
// "display controller" on some firmware) counts like 0x0302.
TEST(PciClassTest, BaseClassThreeOfNvidiaIsAGpu) {
  EXPECT_EQ(ClassifyPci(0x10de, 0x030200), PciKind::kNvidiaGpu);
  EXPECT_EQ(ClassifyPci(0x10de, 0x030000), PciKind::kNvidiaGpu);
  EXPECT_EQ(ClassifyPci(0x10de, 0x038000), PciKind::kNvidiaGpu);
  EXPECT_EQ(ClassifyPci(0x1a03, 0x030000), PciKind::kOther);  // the BMC's ASPEED VGA
  EXPECT_EQ(ClassifyPci(0x10de, 0x068000), PciKind::kOther);  // an NVSwitch bridge
}

TEST(PciClassTest, NetworkAndInfinibandAreNicsNvmeIsNvme) {
  EXPECT_EQ(ClassifyPci(0x15b3, 0x020000), PciKind::kNic);
  EXPECT_EQ(ClassifyPci(0x15b3, 0x020700), PciKind::kNic);
  EXPECT_EQ(ClassifyPci(0x15b3, 0x0c0600), PciKind::kNic);
  EXPECT_EQ(ClassifyPci(0x144d, 0x010802), PciKind::kNvme);
}

TEST(PciClassTest, SysfsTextIsReadWholeOrNotAtAll) {
  EXPECT_EQ(ClassifyPci("0x10de", "0x030200\n"), PciKind::kNvidiaGpu);
  EXPECT_EQ(ClassifyPci("0x10de", "0x0302zz"), PciKind::kOther);
  EXPECT_EQ(ClassifyPci("", "0x030200"), PciKind::kOther);
}

}  // namespace
}  // namespace nodeprobe::platform
