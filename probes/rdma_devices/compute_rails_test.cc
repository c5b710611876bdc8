// The compute rails of a node, on a /sys tree built for the purpose (no
// captured tree has an NVIDIA GPU and RDMA NICs together): a GPU and mlx5_0
// under one PCIe switch, a VF of mlx5_0 (mlx5_2) and a port that is DOWN
// (mlx5_3) under the same switch, and a storage NIC (mlx5_1) on another
// root complex. Only mlx5_0 is a rail.
#include "probes/rdma_devices/compute_rails.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "gtest/gtest.h"
#include "platform/pci_sysfs.h"
#include "probes/framework/profile.h"
#include "probes/rdma_devices/rdma_devices_probe.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::rdma {
namespace {

using ::nodeprobe::testing::WriteFile;

class ComputeRailsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sys_ = dir_.path() + "/sys";
    std::filesystem::create_directories(sys_ + "/bus/pci/devices");
    std::filesystem::create_directories(sys_ + "/class/infiniband");
    const std::string sw = "devices/pci0000:00/0000:00:01.0/0000:01:00.0";
    Pci("devices/pci0000:00/0000:00:01.0", "0x8086", "0x060400");
    Pci(sw, "0x15b3", "0x060400");
    Pci(sw + "/0000:02:00.0", "0x15b3", "0x060400");
    Pci(sw + "/0000:02:01.0", "0x15b3", "0x060400");
    Pci(sw + "/0000:02:00.0/0000:03:00.0", "0x10de", "0x030200");  // the GPU
    Hca("mlx5_0", sw + "/0000:02:01.0/0000:04:00.0", "4: ACTIVE", "192.168.7.5", "eth0.100");
    Hca("mlx5_2", sw + "/0000:02:01.0/0000:04:00.2", "4: ACTIVE", "192.168.7.9", "eth9");
    symlink("../0000:04:00.0",
            (sys_ + "/" + sw + "/0000:02:01.0/0000:04:00.2/physfn").c_str());  // a VF of mlx5_0
    Hca("mlx5_3", sw + "/0000:02:01.0/0000:04:00.1", "1: DOWN", "192.168.8.5", "eth3");
    Pci("devices/pci0000:80/0000:80:01.0", "0x8086", "0x060400");
    Hca("mlx5_1", "devices/pci0000:80/0000:80:01.0/0000:81:00.0", "4: ACTIVE", "10.0.0.5",
        "eth1");  // storage
  }

  void Pci(const std::string& path, const std::string& vendor, const std::string& cls) {
    WriteFile(sys_ + "/" + path + "/vendor", vendor + "\n");
    WriteFile(sys_ + "/" + path + "/class", cls + "\n");
    const std::string addr = path.substr(path.rfind('/') + 1);
    symlink(("../../../" + path).c_str(), (sys_ + "/bus/pci/devices/" + addr).c_str());
  }

  // A RoCE HCA at `path` with port 1 in `state`, its IPv4 GID on `netdev`.
  void Hca(const std::string& name, const std::string& path, const std::string& state,
           const std::string& ip, const std::string& netdev) {
    Pci(path, "0x15b3", "0x020000");
    const std::string dev = sys_ + "/" + path + "/infiniband/" + name;
    const std::string port = dev + "/ports/1";
    WriteFile(port + "/state", state + "\n");
    WriteFile(port + "/phys_state", "5: LinkUp\n");
    WriteFile(port + "/link_layer", "Ethernet\n");
    WriteFile(port + "/rate", "200 Gb/sec (4X HDR)\n");
    WriteFile(port + "/gids/0", "fe80:0000:0000:0000:0ac4:7aff:fe00:0001\n");
    WriteFile(port + "/gid_attrs/types/0", "RoCE v2\n");
    WriteFile(port + "/gid_attrs/ndevs/0", netdev.substr(0, netdev.find('.')) + "\n");
    char hex[16];
    unsigned a, b, c, d;
    sscanf(ip.c_str(), "%u.%u.%u.%u", &a, &b, &c, &d);
    snprintf(hex, sizeof(hex), "%02x%02x:%02x%02x", a, b, c, d);
    WriteFile(port + "/gids/3", std::string("0000:0000:0000:0000:0000:ffff:") + hex + "\n");
    WriteFile(port + "/gid_attrs/types/3", "RoCE v2\n");
    WriteFile(port + "/gid_attrs/ndevs/3", netdev + "\n");
    std::filesystem::create_directories(port + "/counters");
    symlink(("../../" + path + "/infiniband/" + name).c_str(),
            (sys_ + "/class/infiniband/" + name).c_str());
    const std::string addr = path.substr(path.rfind('/') + 1);
    symlink(("../../../" + addr).c_str(), (dev + "/device").c_str());
  }

  testing::TempDir dir_;
  std::string sys_;
};

TEST_F(ComputeRailsTest, OnlyTheGpusActivePhysicalNicIsARail) {
  const platform::FileTree sys(sys_);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  ASSERT_TRUE(devs.ok()) << devs.status();
  ASSERT_EQ(devs->size(), 4u);
  std::vector<std::string> left_out;
  const std::vector<ComputeRail> rails = ComputeRails(*devs, sys, &left_out);
  ASSERT_EQ(rails.size(), 1u) << ::testing::PrintToString(left_out);
  EXPECT_EQ(rails[0].port.device, "mlx5_0");
  EXPECT_TRUE(rails[0].gpu_local);
  EXPECT_EQ(rails[0].gpu_bus_id, "0000:03:00.0");  // the GPU under the same switch
  // The address is on the VLAN: that is the rail's interface.
  EXPECT_EQ(rails[0].netdev, "eth0.100");
  std::sort(left_out.begin(), left_out.end());
  EXPECT_EQ(left_out, (std::vector<std::string>{
                          "mlx5_1:1 (not the nearest RDMA NIC of any GPU)",
                          "mlx5_2:1 (a virtual function)", "mlx5_3:1 (not ACTIVE)"}));
  // Without the GPU, every ACTIVE physical port is a rail.
  std::filesystem::remove_all(sys_ +
                              "/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0");
  std::filesystem::remove(sys_ + "/bus/pci/devices/0000:03:00.0");
  EXPECT_EQ(ComputeRails(*devs, sys).size(), 2u);
}

// A switch-less server: the GPU alone on a root port of socket 1, the
// switch's NICs on socket 0 and mlx5_1 on socket 1. No NIC shares a bridge
// with the GPU: its NUMA node's NIC is its rail, not every NIC.
TEST_F(ComputeRailsTest, WithoutASharedBridgeTheGpusNumaNodePicksItsNic) {
  std::filesystem::remove_all(sys_ +
                              "/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0");
  std::filesystem::remove(sys_ + "/bus/pci/devices/0000:03:00.0");
  Pci("devices/pci0000:40/0000:40:01.0", "0x8086", "0x060400");
  Pci("devices/pci0000:40/0000:40:01.0/0000:41:00.0", "0x10de", "0x030200");
  WriteFile(sys_ + "/devices/pci0000:40/0000:40:01.0/0000:41:00.0/numa_node", "1\n");
  WriteFile(sys_ + "/devices/pci0000:80/0000:80:01.0/0000:81:00.0/numa_node", "1\n");
  for (const char* f : {"0000:04:00.0", "0000:04:00.1", "0000:04:00.2"}) {
    WriteFile(sys_ + "/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:01.0/" + f +
                  "/numa_node",
              "0\n");
  }
  const platform::FileTree sys(sys_);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  ASSERT_TRUE(devs.ok()) << devs.status();
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> pci = platform::ReadPciDevices(sys);
  ASSERT_TRUE(pci.ok()) << pci.status();
  EXPECT_EQ(GpuLocalNicAddresses(*pci, *devs), (std::set<std::string>{"0000:81:00.0"}));
  const std::vector<ComputeRail> rails = ComputeRails(*devs, sys);
  ASSERT_EQ(rails.size(), 1u);
  EXPECT_EQ(rails[0].port.device, "mlx5_1");
  // NUMA unknown (-1, a one-node machine): every NIC still counts.
  WriteFile(sys_ + "/devices/pci0000:40/0000:40:01.0/0000:41:00.0/numa_node", "-1\n");
  pci = platform::ReadPciDevices(sys);
  ASSERT_TRUE(pci.ok());
  EXPECT_EQ(GpuLocalNicAddresses(*pci, *devs).size(), 4u);
}

// A down port fails where it is a compute rail's (mlx5_3, a port of the
// GPU's nearest NIC kind, under its switch) and warns elsewhere (the
// storage NIC mlx5_1 on the other root complex).
TEST_F(ComputeRailsTest, ADownPortFailsOnlyOnAComputeRail) {
  WriteFile(sys_ + "/devices/pci0000:80/0000:80:01.0/0000:81:00.0/infiniband/mlx5_1/ports/1/state",
            "1: DOWN\n");
  const platform::FileTree sys(sys_);
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devs = platform::ReadRdmaDevices(sys);
  ASSERT_TRUE(devs.ok()) << devs.status();
  absl::StatusOr<std::map<std::string, platform::RawPciDevice>> pci = platform::ReadPciDevices(sys);
  ASSERT_TRUE(pci.ok()) << pci.status();
  EXPECT_EQ(GpuLocalNicAddresses(*pci, *devs),
            (std::set<std::string>{"0000:04:00.0", "0000:04:00.1", "0000:04:00.2"}));
  const v1::ProbeResult r = JudgeRdmaDevices(*devs, Profile(), false, *pci);
  std::map<std::string, v1::Verdict> down;
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == "RDMA_PORT_DOWN") down[f.device()] = f.severity();
  }
  EXPECT_EQ(down, (std::map<std::string, v1::Verdict>{{"mlx5_1:1", v1::WARN},
                                                      {"mlx5_3:1", v1::FAIL}}))
      << r.DebugString();
  // Without a GPU nothing tells rails apart: every down port fails.
  pci->erase("0000:03:00.0");
  const v1::ProbeResult no_gpu = JudgeRdmaDevices(*devs, Profile(), false, *pci);
  for (const v1::Finding& f : no_gpu.findings()) {
    if (f.code() == "RDMA_PORT_DOWN") EXPECT_EQ(f.severity(), v1::FAIL) << f.device();
  }
}

}  // namespace
}  // namespace nodeprobe::rdma
