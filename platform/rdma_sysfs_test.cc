// Reads the RDMA devices of two captured /sys trees.
#include "platform/rdma_sysfs.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

TEST(ReadRdmaDevicesTest, ReadsHwlocXeonCapture) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  absl::StatusOr<std::vector<RawRdmaDevice>> devs =
      ReadRdmaDevices(FileTree((*host)->sys_root));
  ASSERT_TRUE(devs.ok()) << devs.status();
  ASSERT_EQ(devs->size(), 2u);  // mlx4_0 and the MIC's scif0
  const RawRdmaDevice& mlx = (*devs)[0];
  EXPECT_EQ(mlx.name, "mlx4_0");
  EXPECT_EQ(mlx.pci_address, "0000:82:00.0");
  EXPECT_EQ(*mlx.attrs.at("fw_ver").value, "2.11.500");
  ASSERT_EQ(mlx.ports.size(), 1u);
  const RawRdmaPort& port = mlx.ports[0];
  EXPECT_EQ(*port.attrs.at("state").value, "4: ACTIVE");
  EXPECT_EQ(*port.attrs.at("rate").value, "56 Gb/sec (4X FDR)");
  EXPECT_EQ(*port.attrs.at("link_layer").value, "InfiniBand");
  ASSERT_FALSE(port.gids.empty());
  EXPECT_EQ(port.gids[0].index, 0u);
  // This kernel predates gid_attrs: the type is NOT_FOUND, not invented.
  EXPECT_EQ(port.gids[0].type.value.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*port.counters.at("symbol_error").value, "0");
}

TEST(ReadRdmaDevicesTest, ReadsNodeExporterCapture) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  auto devs = ReadRdmaDevices(FileTree((*host)->sys_root));
  ASSERT_TRUE(devs.ok()) << devs.status();
  ASSERT_EQ(devs->size(), 2u);
  EXPECT_EQ((*devs)[0].name, "i40iw0");
  EXPECT_EQ((*devs)[1].name, "mlx4_0");
  ASSERT_EQ((*devs)[1].ports.size(), 2u);
  EXPECT_EQ(*(*devs)[1].ports[1].attrs.at("rate").value, "40 Gb/sec (4X QDR)");
  EXPECT_EQ(*(*devs)[1].ports[0].counters.at("port_xmit_discards").value, "5");
}

TEST(ReadRdmaDevicesTest, NoInfinibandClassIsEmptyNotError) {
  testing::TempDir dir;
  auto devs = ReadRdmaDevices(FileTree(dir.path()));
  ASSERT_TRUE(devs.ok());
  EXPECT_TRUE(devs->empty());
}

TEST(ReadRdmaDevicesTest, MissingPortsDirectoryIsRecorded) {
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/class/infiniband/mlx5_0/fw_ver", "1.2.3\n");
  auto devs = ReadRdmaDevices(FileTree(dir.path()));
  ASSERT_TRUE(devs.ok());
  ASSERT_EQ(devs->size(), 1u);
  EXPECT_EQ((*devs)[0].ports_status.code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace nodeprobe::platform
