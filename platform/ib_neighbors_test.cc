// File: ib_neighbors_test.cc
// The walk from a discovered fabric to each local port's neighbour. No IB
// fabric or captured fabric cache exists here (../shared/fixtures has none),
// so the fabric is built in memory the way libibnetdisc lays it out: a CA
// whose ports[] is indexed by port number with null gaps, each cabled port's
// remoteport pointing into the switch's ports. hwtests/ib_cabling.sh checks
// the live path against ibnetdiscover on a fabric.
#include "platform/ib_neighbors.h"

#include <cstring>

#include <gtest/gtest.h>

namespace nodeprobe::platform {
namespace {

struct TwoPortCaOnOneSwitch {
  ibnd_fabric_t fabric = {};
  ibnd_node_t ca = {};
  ibnd_node_t leaf = {};
  ibnd_port_t ca_ports[3] = {};
  ibnd_port_t leaf_ports[41] = {};
  ibnd_port_t* ca_index[3] = {};
  ibnd_port_t* leaf_index[41] = {};

  TwoPortCaOnOneSwitch() {
    ca.type = IB_NODE_CA;
    ca.numports = 2;
    ca.ports = ca_index;
    std::strcpy(ca.nodedesc, "gpu-node-0 mlx5_0");
    leaf.type = IB_NODE_SWITCH;
    leaf.numports = 40;
    leaf.guid = 0xb8cef603000e2a40ull;
    leaf.ports = leaf_index;
    std::strcpy(leaf.nodedesc, "MF0;leaf-rail-0-a:MQM9700/U1");
    for (int p = 1; p <= 2; ++p) {
      ca_ports[p].portnum = p;
      ca_ports[p].node = &ca;
      ca_index[p] = &ca_ports[p];
    }
    for (int p = 0; p <= 40; ++p) {
      leaf_ports[p].portnum = p;
      leaf_ports[p].node = &leaf;
      leaf_index[p] = &leaf_ports[p];
    }
    // Port 1 is cabled to the leaf's port 17; port 2 has no cable.
    ca_ports[1].remoteport = &leaf_ports[17];
    leaf_ports[17].remoteport = &ca_ports[1];
    fabric.from_node = &ca;
  }
};

TEST(IbNeighborsTest, EachCabledPortNamesTheSwitchAndItsPort) {
  TwoPortCaOnOneSwitch f;
  std::vector<IbNeighbor> n = IbNeighborsOf(f.fabric);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].port, 1);
  EXPECT_EQ(n[0].node_desc, "MF0;leaf-rail-0-a:MQM9700/U1");
  EXPECT_EQ(n[0].remote_port, 17);
  EXPECT_EQ(n[0].node_guid, 0xb8cef603000e2a40ull);
  EXPECT_TRUE(n[0].remote_is_switch);
}

TEST(IbNeighborsTest, NullPortsAndAMissingStartNodeAreNoCrash) {
  TwoPortCaOnOneSwitch f;
  f.ca_index[1] = nullptr;  // "Any port in the array MAY BE NULL"
  EXPECT_TRUE(IbNeighborsOf(f.fabric).empty());
  f.fabric.from_node = nullptr;
  EXPECT_TRUE(IbNeighborsOf(f.fabric).empty());
}

TEST(IbNeighborsTest, ADescriptionFillingTheWholeFieldIsBounded) {
  TwoPortCaOnOneSwitch f;
  std::memset(f.leaf.nodedesc, 'x', sizeof(f.leaf.nodedesc));  // no NUL at all
  std::vector<IbNeighbor> n = IbNeighborsOf(f.fabric);
  ASSERT_EQ(n.size(), 1u);
  EXPECT_EQ(n[0].node_desc.size(), sizeof(f.leaf.nodedesc));
}

TEST(IbNeighborsTest, AFileThatIsNoFabricCacheIsInvalidArgument) {
  absl::StatusOr<std::vector<IbNeighbor>> n = LoadIbNeighbors("/proc/self/status");
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(n.status().message().find("ibnetdiscover --cache"), std::string::npos);
}

TEST(IbNeighborsTest, DiscoveryWithoutAnHcaIsUnavailableNamingThePort) {
  absl::StatusOr<std::vector<IbNeighbor>> n = DiscoverIbNeighbors("mlx5_77", 1);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(n.status().message().find("mlx5_77:1"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::platform
