#include "probes/inventory/inventory_probe.h"

#include <unistd.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "probes/framework/stage_runner.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::WriteFile;

const v1::Component* Find(const v1::ProbeResult& r, const std::string& name) {
  for (const auto& c : r.inventory().components()) {
    if (c.name() == name) return &c;
  }
  return nullptr;
}

class InventoryProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::HwlocXeonHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
    // The capture's scif0 link dangles (its target was not captured); the
    // tests pin versions of mlx4_0 alone.
    testing::RemoveTree(host_->sys_root + "/class/infiniband/scif0");
    ctx_.host.sys_root = host_->sys_root;
    ctx_.host.proc_root = host_->proc_root;
    ctx_.host.etc_root = host_->dir.path() + "/etc";
    ctx_.profile = &profile_;
  }
  v1::ProbeResult Run() {
    absl::StatusOr<v1::ProbeResult> r = InventoryProbe().Run(ctx_);
    EXPECT_TRUE(r.ok()) << r.status();
    v1::ProbeResult result = r.ok() ? *r : v1::ProbeResult();
    FinalizeResult(profile_, &result);
    return result;
  }
  std::unique_ptr<testing::CapturedHost> host_;
  Profile profile_;
  ProbeContext ctx_;
};

TEST_F(InventoryProbeTest, ReportsHcaFirmwareFromCaptureAndAbsentPartsAsAbsent) {
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::PASS);
  bool found_mlx = false;
  for (const auto& c : r.inventory().components()) {
    if (c.name() == "hca_firmware" && c.device() == "mlx4_0") {
      found_mlx = true;
      EXPECT_TRUE(c.present());
      EXPECT_EQ(c.version(), "2.11.500");
      EXPECT_NE(c.detail().find("0000:82:00.0"), std::string::npos);
      EXPECT_NE(c.detail().find("DEL0A30000019"), std::string::npos);
    }
  }
  EXPECT_TRUE(found_mlx);
  // The capture has no NVIDIA driver, no os-release and no cmdline.
  ASSERT_NE(Find(r, "nvidia_driver"), nullptr);
  EXPECT_FALSE(Find(r, "nvidia_driver")->present());
  EXPECT_FALSE(Find(r, "os_release")->present());
  EXPECT_FALSE(Find(r, "nvidia_peermem")->present());
  // Libraries are this machine's, not the capture's: not captured, never
  // the live host's versions passed off as the node's.
  for (const char* lib : {"rdma_core", "hwloc", "cuda_driver", "cuda_runtime", "nccl"}) {
    ASSERT_NE(Find(r, lib), nullptr) << lib;
    EXPECT_FALSE(Find(r, lib)->present()) << lib;
    EXPECT_EQ(Find(r, lib)->detail().rfind("not captured", 0), 0u) << Find(r, lib)->detail();
  }
}

TEST_F(InventoryProbeTest, APinOnAComponentTheCaptureLacksIsNotJudged) {
  Profile profile;
  profile.versions["nccl"] = "2.21.5";
  ctx_.profile = &profile;
  v1::ProbeResult r = Run();
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "VERSION_NOT_CAPTURED");
  EXPECT_EQ(r.findings(0).severity(), v1::PASS);
}

TEST_F(InventoryProbeTest, ReadsDriverAndPeermemWhenPresent) {
  WriteFile(host_->proc_root + "/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  "
            "Release Build\n");
  WriteFile(host_->sys_root + "/module/nvidia_peermem/version", "1.1\n");
  WriteFile(ctx_.host.etc_root + "/os-release",
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_ID=\"12\"\n");
  WriteFile(host_->proc_root + "/cmdline", "root=/dev/sda1 iommu=pt\n");
  v1::ProbeResult r = Run();
  EXPECT_EQ(Find(r, "nvidia_driver")->version(), "550.54.15");
  EXPECT_EQ(Find(r, "nvidia_driver")->detail(), "open kernel module");
  EXPECT_EQ(Find(r, "nvidia_peermem")->version(), "1.1");
  EXPECT_EQ(Find(r, "os_release")->version(), "12");
  EXPECT_EQ(Find(r, "kernel_cmdline")->version(), "iommu=pt");
}

// Debian and Ubuntu: /etc/os-release is ../usr/lib/os-release. It is read
// inside the captured root, where the link resolves; without etc/os-release
// at all, /usr/lib/os-release is the fallback os-release(5) documents.
TEST_F(InventoryProbeTest, ARelativeOsReleaseLinkResolvesInsideTheRoot) {
  WriteFile(host_->dir.path() + "/usr/lib/os-release",
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nVERSION_ID=\"12\"\n");
  std::filesystem::create_directories(ctx_.host.etc_root);
  ASSERT_EQ(symlink("../usr/lib/os-release", (ctx_.host.etc_root + "/os-release").c_str()), 0);
  v1::ProbeResult r = Run();
  ASSERT_TRUE(Find(r, "os_release")->present()) << Find(r, "os_release")->detail();
  EXPECT_EQ(Find(r, "os_release")->version(), "12");
  std::filesystem::remove(ctx_.host.etc_root + "/os-release");
  r = Run();
  EXPECT_EQ(Find(r, "os_release")->version(), "12");
  // A link that leads out of the root is refused, not followed.
  ASSERT_EQ(symlink("../../../../../../../../etc/os-release",
                    (ctx_.host.etc_root + "/os-release").c_str()),
            0);
  std::filesystem::remove(host_->dir.path() + "/usr/lib/os-release");
  r = Run();
  EXPECT_FALSE(Find(r, "os_release")->present());
}

// This machine: os_release is read live.
TEST(InventoryLiveTest, ThisMachinesOsReleaseIsRead) {
  if (access("/etc/os-release", R_OK) != 0 && access("/usr/lib/os-release", R_OK) != 0) {
    GTEST_SKIP() << "this machine has no os-release";
  }
  Profile profile;
  ProbeContext ctx;
  ctx.profile = &profile;
  absl::StatusOr<v1::ProbeResult> r = InventoryProbe().Run(ctx);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_NE(Find(*r, "os_release"), nullptr);
  EXPECT_TRUE(Find(*r, "os_release")->present()) << Find(*r, "os_release")->detail();
}

TEST_F(InventoryProbeTest, PinnedVersionThatDiffersIsVersionMismatch) {
  profile_.versions["hca_firmware"] = "2.42";
  profile_.versions["nvidia_driver"] = "550";
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::FAIL);
  ASSERT_EQ(r.findings_size(), 2);
  EXPECT_EQ(r.findings(0).code(), "VERSION_MISMATCH");
  EXPECT_EQ(r.findings(0).device(), "mlx4_0");
  EXPECT_NE(r.findings(0).message().find("expected 2.42, found 2.11.500"),
            std::string::npos);
  EXPECT_NE(r.findings(1).message().find("found absent"), std::string::npos);
}

TEST_F(InventoryProbeTest, PinnedVersionPrefixMatches) {
  profile_.versions["hca_firmware"] = "2.11";
  EXPECT_EQ(Run().verdict(), v1::PASS);
}

}  // namespace
}  // namespace nodeprobe
