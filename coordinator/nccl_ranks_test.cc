// What NCCL is told on each node of a collective across nodes.
#include "coordinator/nccl_ranks.h"

#include "gtest/gtest.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe::coordinator {
namespace {

v1::Rail* AddRail(v1::Registration* reg, const std::string& dev, const std::string& netdev,
                  const std::string& link_layer) {
  v1::Rail* r = reg->add_rails();
  r->set_rdma_device(dev);
  r->set_port(1);
  r->set_netdev(netdev);
  r->set_link_layer(link_layer);
  return r;
}

TEST(NcclEnvForTest, RoceRailsThatAgreeGiveTheirGidIndex) {
  v1::Registration reg;
  AddRail(&reg, "mlx5_0", "ens1f0np0", "Ethernet")->set_gid_index(3);
  AddRail(&reg, "mlx5_1", "ens1f1np1", "Ethernet")->set_gid_index(3);
  const auto env = NcclEnvFor(reg, Profile{});
  EXPECT_EQ(env.at("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_1:1");
  EXPECT_EQ(env.at("NCCL_SOCKET_IFNAME"), "=ens1f0np0,ens1f1np1");
  EXPECT_EQ(env.at("NCCL_IB_GID_INDEX"), "3");
}

TEST(NcclEnvForTest, NoGidIndexWhenRailsDisagreeOrOneIsUnknown) {
  v1::Registration differ;
  AddRail(&differ, "mlx5_0", "ens1f0np0", "Ethernet")->set_gid_index(3);
  AddRail(&differ, "mlx5_1", "ens1f1np1", "Ethernet")->set_gid_index(5);
  EXPECT_EQ(NcclEnvFor(differ, Profile{}).count("NCCL_IB_GID_INDEX"), 0u);
  v1::Registration unknown;
  AddRail(&unknown, "mlx5_0", "ens1f0np0", "Ethernet")->set_gid_index(3);
  AddRail(&unknown, "mlx5_1", "ens1f1np1", "Ethernet");
  EXPECT_EQ(NcclEnvFor(unknown, Profile{}).count("NCCL_IB_GID_INDEX"), 0u);
}

TEST(NcclEnvForTest, InfinibandGetsNoGidIndexAndTheProfileWins) {
  v1::Registration ib;
  AddRail(&ib, "mlx5_0", "ib0", "InfiniBand");
  EXPECT_EQ(NcclEnvFor(ib, Profile{}).count("NCCL_IB_GID_INDEX"), 0u);
  v1::Registration roce;
  AddRail(&roce, "mlx5_0", "ens1f0np0", "Ethernet")->set_gid_index(3);
  Profile p;
  p.MutableSection<NcclRules>().env["NCCL_IB_GID_INDEX"] = "1";
  EXPECT_EQ(NcclEnvFor(roce, p).at("NCCL_IB_GID_INDEX"), "1");
}

}  // namespace
}  // namespace nodeprobe::coordinator
