// Which HCA and port a transfer uses, on a real capture (hwloc's 32em64t:
// mlx4_0 port 1, InfiniBand FDR, IPoIB ib0; eth0/eth1 are plain Ethernet)
// and variants: a RoCE port added beside it, a DOWN port, an alias label.
#include "probes/transfer/rdma_transport.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::transfer {
namespace {

class RdmaPortChoiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto host = testing::HwlocXeonHost();
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *std::move(host);
  }
  absl::StatusOr<RdmaLocal> Choose(const std::string& netdev, const std::string& device = "",
                                   std::vector<std::string> ipv4 = {},
                                   std::optional<uint32_t> gid_index = std::nullopt,
                                   uint32_t port = 0) {
    platform::Egress e;
    e.netdev = netdev;
    e.netdev_ipv4 = std::move(ipv4);
    return ChooseRdmaLocal(platform::FileTree(host_->sys_root), e, device, gid_index, port);
  }
  // A RoCE port <device>:1 on `netdev` with a RoCE v2 GID for 192.168.7.5.
  void AddRocePort(const char* state = "4: ACTIVE", const std::string& device = "mlx5_1",
                   const std::string& netdev = "eth1") {
    const std::string p = host_->sys_root + "/class/infiniband/" + device + "/ports/1";
    testing::WriteFile(p + "/state", std::string(state) + "\n");
    testing::WriteFile(p + "/phys_state", "5: LinkUp\n");
    testing::WriteFile(p + "/link_layer", "Ethernet\n");
    testing::WriteFile(p + "/rate", "100 Gb/sec (4X EDR)\n");
    testing::WriteFile(p + "/gids/0", "fe80:0000:0000:0000:0ac4:7aff:fe00:0001\n");
    testing::WriteFile(p + "/gids/3", "0000:0000:0000:0000:0000:ffff:c0a8:0705\n");
    testing::WriteFile(p + "/gid_attrs/types/0", "IB/RoCE v1\n");
    testing::WriteFile(p + "/gid_attrs/types/3", "RoCE v2\n");
    testing::WriteFile(p + "/gid_attrs/ndevs/0", netdev + "\n");
    testing::WriteFile(p + "/gid_attrs/ndevs/3", netdev + "\n");
  }
  // A second InfiniBand rail: <device>:1 ACTIVE with port GID `gid`, its
  // IPoIB interface `netdev` carrying that GID in its hardware address.
  void AddIbRail(const std::string& device, const std::string& netdev, const std::string& gid,
                 const std::string& hwaddr) {
    const std::string p = host_->sys_root + "/class/infiniband/" + device + "/ports/1";
    testing::WriteFile(p + "/state", "4: ACTIVE\n");
    testing::WriteFile(p + "/phys_state", "5: LinkUp\n");
    testing::WriteFile(p + "/link_layer", "InfiniBand\n");
    testing::WriteFile(p + "/rate", "200 Gb/sec (4X HDR)\n");
    testing::WriteFile(p + "/gids/0", gid + "\n");
    const std::string n = host_->sys_root + "/class/net/" + netdev;
    testing::WriteFile(n + "/type", "32\n");
    testing::WriteFile(n + "/address", hwaddr + "\n");
  }
  std::unique_ptr<testing::CapturedHost> host_;
};

TEST_F(RdmaPortChoiceTest, AnInfinibandPortIsFoundThroughItsIpoibInterface) {
  auto local = Choose("ib0");
  ASSERT_TRUE(local.ok()) << local.status();
  EXPECT_EQ(local->device, "mlx4_0");
  EXPECT_EQ(local->port, 1);
  EXPECT_FALSE(local->use_grh);  // LID addressing
  EXPECT_NE(local->gid.reason.find("IPoIB"), std::string::npos) << local->gid.reason;
  // An alias label is its interface.
  EXPECT_TRUE(Choose("ib0:1").ok());
}

TEST_F(RdmaPortChoiceTest, ARouteThroughPlainEthernetIsNoRdmaPortUnlessOneIsNamed) {
  auto none = Choose("eth0");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(none.status().message().find("no RDMA port is behind eth0"), std::string::npos)
      << none.status();
  auto named = Choose("eth0", "mlx4_0");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->device, "mlx4_0");
  EXPECT_EQ(Choose("eth0", "mlx9_9").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(RdmaPortChoiceTest, OnAMixedHostEachPeerGetsThePortBehindItsRoute) {
  AddRocePort();
  auto roce = Choose("eth1", "", {"192.168.7.5"});
  ASSERT_TRUE(roce.ok()) << roce.status();
  EXPECT_EQ(roce->device, "mlx5_1");
  EXPECT_TRUE(roce->use_grh);
  EXPECT_EQ(roce->gid.index, 3u);  // the routable RoCE v2 entry, not link-local 0
  auto ib = Choose("ib0");
  ASSERT_TRUE(ib.ok()) << ib.status();
  EXPECT_EQ(ib->device, "mlx4_0");
}

TEST_F(RdmaPortChoiceTest, ADownPortIsNeverChosen) {
  AddRocePort("1: DOWN");
  auto down = Choose("eth1", "", {"192.168.7.5"});
  EXPECT_FALSE(down.ok());
  EXPECT_NE(down.status().message().find("mlx5_1:1 is not ACTIVE"), std::string::npos)
      << down.status();
}

// Two ports under one bond: a GID index alone cannot say which table it
// means, so it needs the device; a port of a device narrows the choice.
TEST_F(RdmaPortChoiceTest, AGidIndexAloneOnTwoPortsIsAmbiguousAndAPortNarrowsADevice) {
  AddRocePort("4: ACTIVE", "mlx5_1", "bond0");
  AddRocePort("4: ACTIVE", "mlx5_2", "bond0");
  auto either = Choose("bond0", "", {"192.168.7.5"});
  EXPECT_TRUE(either.ok()) << either.status();
  auto ambiguous = Choose("bond0", "", {"192.168.7.5"}, 3u);
  EXPECT_EQ(ambiguous.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(ambiguous.status().message().find("mlx5_1:1 and mlx5_2:1"), std::string::npos)
      << ambiguous.status();
  auto named = Choose("bond0", "mlx5_2", {"192.168.7.5"}, 3u);
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->device, "mlx5_2");
  EXPECT_EQ(named->gid.index, 3u);
  EXPECT_EQ(Choose("eth0", "mlx4_0", {}, std::nullopt, 2).status().code(),
            absl::StatusCode::kNotFound);  // mlx4_0 has one port in this capture
  EXPECT_TRUE(Choose("eth0", "mlx4_0", {}, std::nullopt, 1).ok());
  EXPECT_EQ(Choose("ib0", "", {}, std::nullopt, 1).status().code(),
            absl::StatusCode::kInvalidArgument);  // a port without its device
}

// Multi-rail InfiniBand: the peer on each rail's subnet is reached through
// that rail's IPoIB interface, so each rail measures its own HCA (not the
// first IB device by name, which every rail used to get).
TEST_F(RdmaPortChoiceTest, TwoInfinibandRailsInTwoSubnetsEachMeasureTheirOwnHca) {
  AddIbRail("mlx5_0", "ib1", "fe80:0000:0000:0000:b859:9f03:00d4:2a10",
            "00:00:10:87:fe:80:00:00:00:00:00:00:b8:59:9f:03:00:d4:2a:10");
  auto rail0 = Choose("ib0");
  ASSERT_TRUE(rail0.ok()) << rail0.status();
  EXPECT_EQ(rail0->device, "mlx4_0");
  auto rail1 = Choose("ib1");
  ASSERT_TRUE(rail1.ok()) << rail1.status();
  EXPECT_EQ(rail1->device, "mlx5_0");
  EXPECT_EQ(rail1->port, 1);
  EXPECT_FALSE(rail1->use_grh);
  // Naming the other rail's device for ib1's peer is honoured as named
  // (out-of-band exchange), never swapped for the route's.
  auto named = Choose("ib1", "mlx4_0");
  ASSERT_TRUE(named.ok()) << named.status();
  EXPECT_EQ(named->device, "mlx4_0");
}

// Two RoCE rails in one subnet (a variant of the capture: mlx5_1 on eth1,
// mlx5_2 on eth2, both 192.168.7.0/24): the route to any peer leaves by
// eth1, and naming mlx5_2 must still give mlx5_2's own RoCE v2 GID.
TEST_F(RdmaPortChoiceTest, ANamedRocePortTheRouteDoesNotUseUsesItsOwnGid) {
  AddRocePort("4: ACTIVE", "mlx5_1", "eth1");
  AddRocePort("4: ACTIVE", "mlx5_2", "eth2");
  testing::WriteFile(host_->sys_root + "/class/infiniband/mlx5_2/ports/1/gids/3",
                     "0000:0000:0000:0000:0000:ffff:c0a8:0706\n");  // 192.168.7.6
  auto second = Choose("eth1", "mlx5_2", {"192.168.7.5"});
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->device, "mlx5_2");
  EXPECT_EQ(second->gid.index, 3u);
  EXPECT_NE(second->gid.reason.find("192.168.7.6 of eth2, the named port's own"),
            std::string::npos)
      << second->gid.reason;
  auto first = Choose("eth1", "mlx5_1", {"192.168.7.5"});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->device, "mlx5_1");
}

// RoCE over a VLAN: the GID table names the VLAN interface, and the route
// leaves by it (or by an alias label of it).
TEST_F(RdmaPortChoiceTest, ARocePortIsFoundThroughItsVlanInterface) {
  AddRocePort("4: ACTIVE", "mlx5_1", "eth1.100");
  auto vlan = Choose("eth1.100", "", {"192.168.7.5"});
  ASSERT_TRUE(vlan.ok()) << vlan.status();
  EXPECT_EQ(vlan->device, "mlx5_1");
  EXPECT_EQ(vlan->gid.index, 3u);
  EXPECT_TRUE(Choose("eth1.100:7", "", {"192.168.7.5"}).ok());
  // The parent interface carries no GID of this port.
  EXPECT_FALSE(Choose("eth1", "", {"192.168.7.5"}).ok());
}

}  // namespace
}  // namespace nodeprobe::transfer

namespace nodeprobe::transfer {
namespace {

// The stages send latency tasks "by duration" (iterations 0): RDMA runs
// ib_write_lat's 1000 round trips then, never a single post.
TEST(RdmaLatencyTest, ARequestByDurationRunsPerftestsDefaultCount) {
  v1::TransferRequest req;
  req.set_op(v1::WRITE_LAT);
  req.set_duration_s(1);
  EXPECT_EQ(RdmaLatencyIterations(req), 1000u);
  req.set_iterations(50);
  EXPECT_EQ(RdmaLatencyIterations(req), 50u);
}

}  // namespace
}  // namespace nodeprobe::transfer
