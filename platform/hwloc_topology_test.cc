#include "platform/hwloc_topology.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

TEST(DowngradeHwloc3XmlTest, RewritesVersionAndOsdevBitmask) {
  std::string v3 =
      "<topology version=\"3.0\">\n<object type=\"OSDev\" name=\"mlx4_0\" "
      "osdev_type=\"48\"/>\n<object type=\"OSDev\" name=\"eth0\" "
      "osdev_type=\"16\"/><object type=\"OSDev\" name=\"nvml0\" osdev_type=\"12\"/>";
  std::string v2 = DowngradeHwloc3Xml(v3);
  EXPECT_NE(v2.find("<topology version=\"2.0\">"), std::string::npos);
  EXPECT_NE(v2.find("name=\"mlx4_0\" osdev_type=\"3\""), std::string::npos);
  EXPECT_NE(v2.find("name=\"eth0\" osdev_type=\"2\""), std::string::npos);
  EXPECT_NE(v2.find("name=\"nvml0\" osdev_type=\"1\""), std::string::npos);
  EXPECT_EQ(DowngradeHwloc3Xml("<topology version=\"2.0\">"),
            "<topology version=\"2.0\">");
}

TEST(LoadPciTopologyTest, LoadsHwloc3ExportWithOsDevices) {
  auto topo = LoadPciTopology(testing::FixturePath("hwloc/24em64t-2n6c2t-pci.xml"));
  ASSERT_TRUE(topo.ok()) << topo.status();
  bool hca = false;
  for (const auto& d : topo->devices) {
    if (d.address != "0000:05:00.0") continue;
    hca = true;
    EXPECT_EQ(d.vendor_id, 0x15b3);
    EXPECT_EQ(d.class_id, 0x0c06);
    EXPECT_EQ(d.rdma_devices, std::vector<std::string>{"mlx4_0"});
    EXPECT_EQ(d.numa_node, 0);
    ASSERT_GE(d.ancestors.size(), 2u);
    EXPECT_EQ(d.ancestors[0].pci_address, "0000:00:05.0");
    EXPECT_EQ(d.ancestors[1].kind, AncestorKind::kHostBridge);
  }
  EXPECT_TRUE(hca);
}

TEST(LoadPciTopologyTest, LiveMachineLoads) {
  auto topo = LoadPciTopology("");
  ASSERT_TRUE(topo.ok()) << topo.status();
  EXPECT_EQ(topo->source, "live");
}

TEST(LoadPciTopologyTest, MissingFileNamesIt) {
  auto topo = LoadPciTopology("/no/such/topo.xml");
  EXPECT_EQ(topo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(topo.status().message().find("/no/such/topo.xml"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::platform
