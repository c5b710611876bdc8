// The pcie probe on node_exporter's captured /sys and variants of it.
#include "probes/pcie/pcie_probe.h"

#include <unistd.h>

#include <filesystem>

#include "gtest/gtest.h"
#include "platform/file_tree.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

class NodeExporterPcieTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::NodeExporterHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
  }
  v1::ProbeResult Judge() {
    auto devices = platform::ReadPciDevices(platform::FileTree(host_->sys_root));
    EXPECT_TRUE(devices.ok()) << devices.status();
    return devices.ok() ? JudgePcieLinks(*devices) : v1::ProbeResult();
  }
  std::vector<const v1::Finding*> FindingsFor(const v1::ProbeResult& r,
                                              const std::string& device) {
    std::vector<const v1::Finding*> out;
    for (const auto& f : r.findings()) {
      if (f.device() == device) out.push_back(&f);
    }
    return out;
  }
  std::unique_ptr<testing::CapturedHost> host_;
};

TEST_F(NodeExporterPcieTest, BridgeAtX4OfX8IsWidthDegraded) {
  v1::ProbeResult r = Judge();
  auto f = FindingsFor(r, "0000:00:02.1");
  ASSERT_EQ(f.size(), 1u) << r.DebugString();
  EXPECT_EQ(f[0]->code(), "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_NE(f[0]->message().find("x4 of x8"), std::string::npos);
  // The only device below it is an x4 NVMe: reported, but as the slot.
  EXPECT_EQ(f[0]->severity(), v1::WARN);
}

TEST_F(NodeExporterPcieTest, NvmeAtGen3UnderGen3BridgeIsNotDegraded) {
  v1::ProbeResult r = Judge();
  EXPECT_TRUE(FindingsFor(r, "0000:01:00.0").empty()) << r.DebugString();
  bool expected_speed_seen = false;
  for (const auto& m : r.measurements()) {
    if (m.name() == "pcie_expected_speed" && m.labels().at("device") == "0000:01:00.0") {
      EXPECT_DOUBLE_EQ(m.value(), 8.0);  // min(NVMe 16 GT/s, bridge 8 GT/s)
      expected_speed_seen = true;
    }
  }
  EXPECT_TRUE(expected_speed_seen);
}

TEST_F(NodeExporterPcieTest, NarrowBridgeAboveWideDeviceFails) {
  // Variant: the NVMe below 00:02.1 could run x8, so x4 is a real fault.
  testing::WriteFile(host_->sys_root +
                         "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/max_link_width",
                     "8\n");
  v1::ProbeResult r = Judge();
  auto f = FindingsFor(r, "0000:00:02.1");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity(), v1::FAIL);
}

TEST_F(NodeExporterPcieTest, DeviceSlowerThanPathFails) {
  // Variant: the NVMe trained at Gen1 although the path carries 8 GT/s.
  testing::WriteFile(host_->sys_root +
                         "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/current_link_speed",
                     "2.5 GT/s PCIe\n");
  v1::ProbeResult r = Judge();
  auto f = FindingsFor(r, "0000:01:00.0");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->code(), "PCIE_LINK_SPEED_DEGRADED");
  EXPECT_EQ(f[0]->severity(), v1::FAIL);
}

TEST_F(NodeExporterPcieTest, GpuSpeedDropIsWarnBecauseGpusIdleDown) {
  // Variant: the NVMe's function turned into an idle NVIDIA GPU.
  const std::string dev = host_->sys_root + "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/";
  testing::WriteFile(dev + "vendor", "0x10de\n");
  testing::WriteFile(dev + "class", "0x030200\n");
  testing::WriteFile(dev + "current_link_speed", "2.5 GT/s PCIe\n");
  v1::ProbeResult r = Judge();
  auto f = FindingsFor(r, "0000:01:00.0");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0]->severity(), v1::WARN);
  EXPECT_NE(f[0]->message().find("idle"), std::string::npos);
}

TEST_F(NodeExporterPcieTest, AGpuWhoseSpeedReadsUnknownIsAFindingNotADisappearance) {
  // Variant: the NVMe's function as a GPU whose link is not trained.
  const std::string dev = host_->sys_root + "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/";
  testing::WriteFile(dev + "vendor", "0x10de\n");
  testing::WriteFile(dev + "class", "0x030200\n");
  testing::WriteFile(dev + "current_link_speed", "Unknown\n");
  v1::ProbeResult r = Judge();
  auto f = FindingsFor(r, "0000:01:00.0");
  ASSERT_EQ(f.size(), 1u) << r.DebugString();
  EXPECT_EQ(f[0]->code(), "PCIE_LINK_SPEED_UNKNOWN");
  EXPECT_EQ(f[0]->severity(), v1::FAIL);
  EXPECT_NE(f[0]->message().find("although it can run 16 GT/s"), std::string::npos)
      << f[0]->message();
}

TEST_F(NodeExporterPcieTest, ALinkAboveItsMaximumIsInvalid) {
  const std::string dev = host_->sys_root + "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/";
  testing::WriteFile(dev + "current_link_width", "16\n");  // variant: max is x4
  v1::ProbeResult r = Judge();
  bool invalid = false;
  for (const v1::Finding* f : FindingsFor(r, "0000:01:00.0")) {
    invalid |= f->code() == "SYSFS_VALUE_INVALID" && f->severity() == v1::ERROR &&
               f->message().find("above max_link_width x4") != std::string::npos;
  }
  EXPECT_TRUE(invalid) << r.DebugString();
}

TEST_F(NodeExporterPcieTest, GarbageWidthIsErrorNamingFile) {
  const std::string path =
      host_->sys_root + "/devices/pci0000:00/0000:00:02.1/0000:01:00.0/current_link_width";
  testing::WriteFile(path, "wide\n");
  v1::ProbeResult r = Judge();
  bool seen = false;
  for (const auto& f : r.findings()) {
    if (f.code() == "SYSFS_VALUE_INVALID") {
      seen = true;
      EXPECT_EQ(f.severity(), v1::ERROR);
      EXPECT_NE(f.message().find("current_link_width"), std::string::npos);
    }
  }
  EXPECT_TRUE(seen);
}

TEST(PcieProbeTest, UnknownLinksAreSkipNotPass) {
  testing::TempDir dir;
  // A virtio NIC as a VM shows it: class and vendor, no link attributes.
  const std::string dev = dir.path() + "/devices/pci0000:00/0000:00:03.0/";
  testing::WriteFile(dev + "class", "0x020000\n");
  testing::WriteFile(dev + "vendor", "0x1af4\n");
  std::filesystem::create_directories(dir.path() + "/bus/pci/devices");
  ASSERT_EQ(symlink("../../../devices/pci0000:00/0000:00:03.0",
                    (dir.path() + "/bus/pci/devices/0000:00:03.0").c_str()),
            0);
  auto devices = platform::ReadPciDevices(platform::FileTree(dir.path()));
  ASSERT_TRUE(devices.ok()) << devices.status();
  v1::ProbeResult r = JudgePcieLinks(*devices);
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_TRUE(r.findings().empty());
}

TEST(PcieRoleTest, ClassifiesByVendorAndClass) {
  EXPECT_EQ(PcieRole(0x10de, 0x030200), "gpu");
  EXPECT_EQ(PcieRole(0x10de, 0x068000), "");  // NVSwitch
  EXPECT_EQ(PcieRole(0x15b3, 0x020700), "nic");
  EXPECT_EQ(PcieRole(0x15b3, 0x0c0600), "nic");
  EXPECT_EQ(PcieRole(0xc0a9, 0x010802), "nvme");
  EXPECT_EQ(PcieRole(0x1022, 0x060400), "");
}

}  // namespace
}  // namespace nodeprobe
