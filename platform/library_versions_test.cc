#include "platform/library_versions.h"

#include "gtest/gtest.h"

namespace nodeprobe::platform {
namespace {

TEST(LibraryVersionsTest, FormatsCudaVersionCodes) {
  EXPECT_EQ(FormatCudaVersion(13000), "13.0");
  EXPECT_EQ(FormatCudaVersion(12040), "12.4");
}

TEST(LibraryVersionsTest, FormatsNcclVersionCodesOldAndNew) {
  EXPECT_EQ(FormatNcclVersion(22809), "2.28.9");  // NCCL >= 2.9 encoding
  EXPECT_EQ(FormatNcclVersion(2804), "2.8.4");    // NCCL < 2.9 encoding
}

TEST(LibraryVersionsTest, RdmaCoreVersionComesFromLibraryFileName) {
  EXPECT_EQ(RdmaCoreVersionFromPath("/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0"),
            "44");
  EXPECT_EQ(RdmaCoreVersionFromPath("/lib/libibverbs.so.1"), "");
}

TEST(LibraryVersionsTest, LinkedLibrariesAreFound) {
  // libibverbs and hwloc are linked into every build.
  LibraryVersion verbs = RdmaCoreVersion();
  EXPECT_TRUE(verbs.present);
  EXPECT_NE(verbs.detail.find("libibverbs"), std::string::npos);
  LibraryVersion hwloc = HwlocVersion();
  EXPECT_TRUE(hwloc.present);
  EXPECT_EQ(hwloc.version.substr(0, 2), "2.");
}

}  // namespace
}  // namespace nodeprobe::platform
