#include "probes/common/host_facts.h"

#include "gtest/gtest.h"

namespace nodeprobe::hostfacts {
namespace {

TEST(ParseOsReleaseTest, ParsesQuotedAndBareValues) {
  auto f = ParseOsRelease(
      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
      "VERSION_ID=\"12\"\nID=debian\n# comment\n\n");
  EXPECT_EQ(f["PRETTY_NAME"], "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(f["VERSION_ID"], "12");
  EXPECT_EQ(f["ID"], "debian");
}

TEST(ParseNvidiaDriverVersionTest, TellsOpenFromProprietaryModule) {
  NvidiaDriver open = ParseNvidiaDriverVersion(
      "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  "
      "Release Build  (dvs-builder@U16-I3-B03-4-3)  Tue Mar  5 22:15:33 UTC 2024\n"
      "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  EXPECT_EQ(open.version, "550.54.15");
  EXPECT_TRUE(open.open_module);
  NvidiaDriver prop = ParseNvidiaDriverVersion(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05  Sat Aug 19 "
      "01:15:15 UTC 2023\n");
  EXPECT_EQ(prop.version, "535.104.05");
  EXPECT_FALSE(prop.open_module);
  EXPECT_EQ(ParseNvidiaDriverVersion("garbage").version, "");
}

TEST(RelevantCmdlineFlagsTest, KeepsIommuAndAcsFlagsOnly) {
  EXPECT_EQ(RelevantCmdlineFlags("BOOT_IMAGE=/vmlinuz root=/dev/sda1 "
                                 "intel_iommu=on iommu=pt quiet pci=noacs,realloc\n"),
            (std::vector<std::string>{"intel_iommu=on", "iommu=pt",
                                      "pci=noacs,realloc"}));
  EXPECT_TRUE(RelevantCmdlineFlags("root=/dev/sda1 pci=realloc").empty());
}

}  // namespace
}  // namespace nodeprobe::hostfacts
