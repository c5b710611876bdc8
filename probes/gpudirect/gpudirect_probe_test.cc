// The gpudirect probe on a /sys tree built for the purpose: a GPU and a
// ConnectX under one PCIe switch (root port 00:01.0, upstream port 01:00.0,
// downstream ports 02:00.0 and 02:01.0). No captured tree has an NVIDIA GPU
// and an RDMA NIC together, so this is built, with config-space images laid
// out per the PCIe specification.
#include "probes/gpudirect/gpudirect_probe.h"

#include <unistd.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "probes/framework/stage_runner.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::WriteFile;

void Put32(std::string& b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = static_cast<char>(v >> (8 * i));
}

std::string AcsConfig(uint16_t control) {
  std::string b(4096, '\0');
  Put32(b, 0x100, 0x000D | 1u << 16);
  Put32(b, 0x104, 0x005f | uint32_t{control} << 16);
  return b;
}

class GpuDirectTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sys_ = dir_.path() + "/sys";
    proc_ = dir_.path() + "/proc";
    std::filesystem::create_directories(sys_ + "/bus/pci/devices");
    const std::string root = "devices/pci0000:00/0000:00:01.0";
    const std::string usp = root + "/0000:01:00.0";
    Add(root, "0x8086", "0x060400");
    Add(usp, "0x15b3", "0x060400");
    Add(usp + "/0000:02:00.0", "0x15b3", "0x060400");
    Add(usp + "/0000:02:01.0", "0x15b3", "0x060400");
    gpu_ = usp + "/0000:02:00.0/0000:03:00.0";
    Add(gpu_, "0x10de", "0x030200");
    Add(usp + "/0000:02:01.0/0000:04:00.0", "0x15b3", "0x020700");
    WriteFile(sys_ + "/" + usp + "/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0/fw_ver",
              "28.39.1002\n");
    std::filesystem::create_directories(sys_ + "/class/infiniband");
    symlink(("../../" + usp + "/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0").c_str(),
            (sys_ + "/class/infiniband/mlx5_0").c_str());
    symlink("../../../0000:04:00.0",
            (sys_ + "/" + usp + "/0000:02:01.0/0000:04:00.0/infiniband/mlx5_0/device").c_str());
    WriteFile(proc_ + "/sys/kernel/osrelease", "6.1.0-18-amd64\n");
    WriteFile(proc_ + "/driver/nvidia/version",
              "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.104.05\n");
    std::filesystem::create_directories(sys_ + "/module/nvidia_peermem");
  }

  void Add(const std::string& path, const std::string& vendor, const std::string& cls) {
    WriteFile(sys_ + "/" + path + "/vendor", vendor + "\n");
    WriteFile(sys_ + "/" + path + "/class", cls + "\n");
    if (cls == "0x060400") WriteFile(sys_ + "/" + path + "/config", AcsConfig(0));
    const std::string addr = path.substr(path.rfind('/') + 1);
    symlink(("../../../" + path).c_str(), (sys_ + "/bus/pci/devices/" + addr).c_str());
  }

  v1::ProbeResult Run() {
    Profile profile;
    ProbeContext ctx;
    ctx.host.sys_root = sys_;
    ctx.host.proc_root = proc_;
    ctx.profile = &profile;
    auto r = GpuDirectProbe().Run(ctx);
    EXPECT_TRUE(r.ok()) << r.status();
    v1::ProbeResult result = r.ok() ? *r : v1::ProbeResult();
    FinalizeResult(profile, &result);
    return result;
  }

  std::string Dsp() const {
    return sys_ + "/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0";
  }

  testing::TempDir dir_;
  std::string sys_, proc_, gpu_;
};

TEST_F(GpuDirectTest, AcsOffAndPeermemLoadedPasses) {
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  // The bridges below the common upstream port: its downstream ports.
  EXPECT_EQ(r.evidence().at("path 0000:03:00.0 -> 0000:04:00.0"), "0000:02:00.0 0000:02:01.0");
}

// A switch-less server: the GPU and the NIC each on a root port with ACS
// redirect on (as firmware leaves it). P2P between root ports crosses the
// root complex whatever ACS says: evidence, not a FAIL.
TEST_F(GpuDirectTest, AcsOnRootPortsWithNoCommonBridgeIsNotJudged) {
  std::filesystem::remove_all(sys_ + "/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/"
                                     "0000:04:00.0");
  std::filesystem::remove(sys_ + "/bus/pci/devices/0000:04:00.0");
  std::filesystem::remove(sys_ + "/class/infiniband/mlx5_0");
  const std::string rp = "devices/pci0000:80/0000:80:01.0";
  Add(rp, "0x8086", "0x060400");
  Add(rp + "/0000:81:00.0", "0x15b3", "0x020700");
  WriteFile(sys_ + "/" + rp + "/0000:81:00.0/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
  symlink(("../../" + rp + "/0000:81:00.0/infiniband/mlx5_0").c_str(),
          (sys_ + "/class/infiniband/mlx5_0").c_str());
  symlink("../../../0000:81:00.0",
          (sys_ + "/" + rp + "/0000:81:00.0/infiniband/mlx5_0/device").c_str());
  WriteFile(sys_ + "/" + rp + "/config", AcsConfig(0x000d));
  WriteFile(sys_ + "/devices/pci0000:00/0000:00:01.0/config", AcsConfig(0x000d));
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::PASS) << r.DebugString();
  EXPECT_NE(r.evidence().at("path 0000:03:00.0 -> 0000:81:00.0").find("through the root complex"),
            std::string::npos);
}

TEST_F(GpuDirectTest, AcsRedirectOnTheSwitchPortFails) {
  WriteFile(Dsp() + "/config", AcsConfig(0x000d));  // variant: SV+RR+CR on
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::FAIL);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "ACS_ENABLED_ON_GPU_NIC_PATH");
  EXPECT_EQ(r.findings(0).device(), "0000:02:00.0");
  EXPECT_NE(r.findings(0).message().find("bridge 0000:02:00.0"), std::string::npos);
  EXPECT_NE(r.findings(0).remediation().find("setpci -s BRIDGE"), std::string::npos);
}

TEST_F(GpuDirectTest, TruncatedConfigSpaceIsUnknownNotOff) {
  WriteFile(Dsp() + "/config", std::string(64, '\0'));  // variant: captured without root
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::ERROR);
  EXPECT_EQ(r.findings(0).code(), "ACS_STATE_UNKNOWN");
  // A capture is read: the cause is the capture, not who reads it.
  EXPECT_NE(r.findings(0).message().find("in the capture being read: it needs the bridges' "
                                         "config files whole"),
            std::string::npos)
      << r.findings(0).message();
}

TEST_F(GpuDirectTest, NoMethodIsGdrNotAvailable) {
  std::filesystem::remove_all(sys_ + "/module/nvidia_peermem");
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::FAIL);
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "GDR_NOT_AVAILABLE");
  EXPECT_NE(r.findings(0).message().find("proprietary"), std::string::npos);
}

// A capture of just the GPU and the HCA, without module/ (variant of this
// tree): whether nvidia_peermem is loaded is not known, so it is not a FAIL.
TEST_F(GpuDirectTest, ACaptureWithoutModuleIsNotCapturedNotAFail) {
  std::filesystem::remove_all(sys_ + "/module");
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::ERROR) << r.DebugString();
  ASSERT_EQ(r.findings_size(), 1);
  EXPECT_EQ(r.findings(0).code(), "GDR_STATE_NOT_CAPTURED");
  EXPECT_NE(r.findings(0).message().find("not captured"), std::string::npos);
  // The same capture with module/ (peermem absent): judged, a FAIL.
  std::filesystem::create_directories(sys_ + "/module/nvidia");
  r = Run();
  EXPECT_EQ(r.verdict(), v1::FAIL);
  EXPECT_EQ(r.findings(0).code(), "GDR_NOT_AVAILABLE");
  // Loaded there: PASS.
  std::filesystem::create_directories(sys_ + "/module/nvidia_peermem");
  EXPECT_EQ(Run().verdict(), v1::PASS);
  // Without proc/ but with peermem loaded: still known to work.
  std::filesystem::remove_all(proc_);
  EXPECT_EQ(Run().verdict(), v1::PASS);
}

TEST_F(GpuDirectTest, DmaBufWithOpenModuleAndNewKernelPasses) {
  std::filesystem::remove_all(sys_ + "/module/nvidia_peermem");
  WriteFile(proc_ + "/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15\n");
  EXPECT_EQ(Run().verdict(), v1::PASS);
  WriteFile(proc_ + "/sys/kernel/osrelease", "5.4.0-150-generic\n");
  EXPECT_EQ(Run().verdict(), v1::FAIL);  // kernel too old for dma-buf
}

TEST_F(GpuDirectTest, IommuTranslationOnGpuWarns) {
  std::filesystem::create_directories(sys_ + "/class/iommu/dmar0");
  WriteFile(sys_ + "/" + gpu_ + "/iommu_group/type", "DMA-FQ\n");
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::WARN);
  EXPECT_EQ(r.findings(0).code(), "IOMMU_TRANSLATION_ENABLED");
}

TEST_F(GpuDirectTest, NoGpuIsSkip) {
  WriteFile(sys_ + "/" + gpu_ + "/vendor", "0x1af4\n");  // not NVIDIA
  v1::ProbeResult r = Run();
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("0 GPUs"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe
