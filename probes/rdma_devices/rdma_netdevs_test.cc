#include "probes/rdma_devices/rdma_netdevs.h"

#include "gtest/gtest.h"
#include "platform/file_tree.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::rdma {
namespace {

TEST(NetdevsOfPortsTest, RoceVariantOfCapturedPortGivesNetdevAndAddressOnce) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string sys = (*host)->sys_root;
  testing::RemoveTree(sys + "/class/infiniband/scif0");  // its link dangles in the capture
  const std::string port = sys + "/class/infiniband/mlx4_0/ports/1/";
  // Variant: the captured IB port as RoCE, a v1 and a v2 GID for 10.0.0.5 on eth2.
  testing::WriteFile(port + "link_layer", "Ethernet\n");
  testing::RemoveTree(port + "gids");
  for (const char* i : {"2", "3"}) {
    testing::WriteFile(port + "gids/" + i, "0000:0000:0000:0000:0000:ffff:0a00:0005\n");
    testing::WriteFile(port + "gid_attrs/ndevs/" + i, "eth2\n");
  }
  auto devs = platform::ReadRdmaDevices(platform::FileTree(sys));
  ASSERT_TRUE(devs.ok());
  std::vector<PortNetdevs> ports = NetdevsOfPorts(*devs);
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_EQ(ports[0].device, "mlx4_0");
  EXPECT_EQ(ports[0].port, 1u);
  EXPECT_EQ(ports[0].link_layer, "Ethernet");
  EXPECT_DOUBLE_EQ(ports[0].rate_gbps, 56.0);  // the capture's "56 Gb/sec (4X FDR)"
  EXPECT_EQ(ports[0].netdevs, std::vector<std::string>{"eth2"});
  EXPECT_EQ(ports[0].ipv4, std::vector<std::string>{"10.0.0.5"});
}

}  // namespace
}  // namespace nodeprobe::rdma
