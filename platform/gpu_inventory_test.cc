#include "platform/gpu_inventory.h"

#include <gtest/gtest.h>

#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

using testing::WriteFile;

// An H100's function (class 0x030200), its audio-less sibling at 0x0380 on
// some firmware, a ConnectX-7 and the BMC's VGA: two GPUs.
TEST(GpuInventoryTest, TheBusHoldsTheNvidiaDisplayClassFunctions) {
  testing::TempDir dir;
  const std::string devices = dir.path() + "/bus/pci/devices/";
  auto function = [&](const std::string& addr, const std::string& vendor, const std::string& cls) {
    WriteFile(devices + addr + "/vendor", vendor + "\n");
    WriteFile(devices + addr + "/class", cls + "\n");
  };
  function("0000:3b:00.0", "0x10de", "0x030200");
  function("0000:19:00.0", "0x10de", "0x038000");
  function("0000:1a:00.0", "0x15b3", "0x020700");
  function("0000:03:00.0", "0x1a03", "0x030000");
  WriteFile(devices + "0000:99:00.0/vendor", "0x10de\n");  // its class unreadable: not counted
  EXPECT_EQ(PciGpuAddresses(FileTree(dir.path())),
            (std::vector<std::string>{"0000:19:00.0", "0000:3b:00.0"}));
  EXPECT_TRUE(PciGpuAddresses(FileTree(dir.path() + "/nowhere")).empty());
}

TEST(GpuInventoryTest, OnlyNumberedNodesAreGpus) {
  testing::TempDir dev;
  for (const char* name : {"nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-caps"}) {
    WriteFile(dev.path() + "/" + name, "");
  }
  EXPECT_EQ(GpuDeviceNodes(dev.path()), 2);
  EXPECT_EQ(GpuDeviceNodes(dev.path() + "/absent"), 0);
}

}  // namespace
}  // namespace nodeprobe::platform
