// File: rail_tasks_test.cc
// The transfer tasks the stages send for a rail: RDMA where both ends can
// reach each other (InfiniBand by LID without IPoIB), the profile's NCCL
// class on them, and rails paired by name.
#include "coordinator/pair_transfers.h"
#include "gtest/gtest.h"

namespace nodeprobe::coordinator {

int PeerRail(const AgentSession& a, int rail, const AgentSession& b);
std::vector<std::string> RailPlan(const v1::AcceptanceProfile& profile);
bool RailSelected(const v1::RunStageRequest& req, const std::vector<std::string>& plan,
                  const AgentSession& a, const AgentSession& b, int rail, int rails);
std::string UnmeasurableRail(const AgentSession& a, int ar, const AgentSession& b, int br);
bool RailHasAddress(const AgentSession& s, int rail);

namespace {

std::shared_ptr<AgentSession> Node(const std::string& name, const std::string& address,
                                   std::vector<v1::Rail> rails) {
  v1::Registration reg;
  reg.set_node_name(name);
  for (v1::Rail& r : rails) *reg.add_rails() = std::move(r);
  return std::make_shared<AgentSession>(
      name, address, reg, [](const v1::CoordinatorMessage&) { return true; }, [] {}, address);
}

v1::Rail Ib(const std::string& device, const std::string& ipv4 = "") {
  v1::Rail r;
  r.set_name(device + ":1");
  r.set_rdma_device(device);
  r.set_port(1);
  r.set_link_layer("InfiniBand");
  if (!ipv4.empty()) r.add_ipv4(ipv4);
  return r;
}

// A RoCE rail with `ipv4` on it ("" none).
v1::Rail RoceWith(const std::string& device, const std::string& ipv4) {
  v1::Rail r = Ib(device, ipv4);
  r.set_link_layer("Ethernet");
  return r;
}

// An InfiniBand rail without IPoIB is still RDMA (by LID), reached for the
// out-of-band exchange at the agent's own address; never a TCP stream
// labelled with the IB rail's name.
TEST(RailTasksTest, InfinibandWithoutIpoibIsRdmaOverTheControlAddress) {
  auto a = Node("gpu-a", "10.0.0.1", {Ib("mlx5_0")});
  auto b = Node("gpu-b", "10.0.0.2", {Ib("mlx5_0")});
  EXPECT_TRUE(RdmaRail(*a, *b, 0));
  const v1::Task go = TransferTask(*a, *b, 0, 18515, v1::WRITE_BW, 3);
  EXPECT_EQ(go.run_transfer().request().transport(), v1::RDMA);
  EXPECT_EQ(go.run_transfer().peer_host(), "10.0.0.2");
  EXPECT_EQ(go.run_transfer().device(), "mlx5_0");
  // RoCE still needs the peer's rail address (a routable GID).
  v1::Rail roce = Ib("mlx5_1");
  roce.set_link_layer("Ethernet");
  auto c = Node("gpu-c", "10.0.0.3", {roce});
  auto d = Node("gpu-d", "10.0.0.4", {roce});
  EXPECT_FALSE(RdmaRail(*c, *d, 0));
}

TEST(RailTasksTest, TheProfilesNcclClassRidesOnRdmaTransfersOnly) {
  v1::AcceptanceProfile profile;
  profile.set_source("fleet.yaml");
  profile.set_yaml("nccl:\n  env: { NCCL_IB_TC: \"106\", NCCL_IB_SL: \"3\" }\n");
  auto a = Node("gpu-a", "10.0.0.1", {Ib("mlx5_0")});
  auto b = Node("gpu-b", "10.0.0.2", {Ib("mlx5_0")});
  v1::Task rdma = TransferTask(*a, *b, 0, 18515, v1::WRITE_BW, 3);
  SetTrafficClass(profile, &rdma);
  EXPECT_EQ(rdma.run_transfer().request().traffic_class(), 106u);
  EXPECT_EQ(rdma.run_transfer().request().service_level(), 3u);
  auto c = Node("gpu-c", "10.0.0.3", {});
  auto d = Node("gpu-d", "10.0.0.4", {});
  v1::Task tcp = TransferTask(*c, *d, 0, 18515, v1::STREAM_BW, 3);
  SetTrafficClass(profile, &tcp);
  EXPECT_EQ(tcp.run_transfer().request().traffic_class(), 0u);
  // Without NCCL_IB_TC the RoCE design's ToS is the class.
  profile.set_yaml("roce:\n  tos: 98\n");
  v1::Task designed = TransferTask(*a, *b, 0, 18515, v1::WRITE_BW, 3);
  SetTrafficClass(profile, &designed);
  EXPECT_EQ(designed.run_transfer().request().traffic_class(), 98u);
}

// A RoCE rail without IPv4 cannot be measured as itself: it is
// RAIL_NOT_MEASURED, never a TCP stream over the management network in its
// name; an IB rail without IPoIB is measured (by LID) but has no path MTU
// of its own.
TEST(RailTasksTest, ARoceRailWithoutAnAddressIsNotMeasuredInItsName) {
  auto a = Node("gpu-a", "10.0.0.1", {RoceWith("mlx5_1", "192.168.1.4")});
  auto b = Node("gpu-b", "10.0.0.2", {RoceWith("mlx5_1", "")});
  const std::string why = UnmeasurableRail(*a, 0, *b, 0);
  EXPECT_NE(why.find("mlx5_1:1 on gpu-b has no IPv4 address"), std::string::npos) << why;
  EXPECT_NE(why.find("management network"), std::string::npos) << why;
  EXPECT_EQ(UnmeasurableRail(*a, 0, *a, 0), "");
  auto c = Node("gpu-c", "10.0.0.3", {Ib("mlx5_0")});
  auto d = Node("gpu-d", "10.0.0.4", {Ib("mlx5_0")});
  EXPECT_EQ(UnmeasurableRail(*c, 0, *d, 0), "");
  EXPECT_FALSE(RailHasAddress(*d, 0));
  EXPECT_TRUE(RailHasAddress(*a, 0));
  auto tcp = Node("cpu-e", "10.0.0.5", {});
  EXPECT_TRUE(RailHasAddress(*tcp, 0));  // no rails: the management path by design
}

TEST(RailTasksTest, RailsPairByNameNotPosition) {
  auto a = Node("gpu-a", "10.0.0.1", {Ib("mlx5_0"), Ib("mlx5_1")});
  auto b = Node("gpu-b", "10.0.0.2", {Ib("mlx5_1"), Ib("mlx5_0")});
  EXPECT_EQ(PeerRail(*a, 0, *b), 1);
  EXPECT_EQ(PeerRail(*a, 1, *b), 0);
  // A node missing a rail: no pairing across rails by position.
  auto c = Node("gpu-c", "10.0.0.3", {Ib("mlx5_4")});
  EXPECT_EQ(PeerRail(*a, 0, *c), -1);
  EXPECT_EQ(PeerRail(*a, 1, *c), -1);
  auto short_b = Node("gpu-b2", "10.0.0.6", {Ib("mlx5_1")});
  EXPECT_EQ(PeerRail(*a, 0, *short_b), -1);  // mlx5_0 is missing there
  EXPECT_EQ(PeerRail(*a, 1, *short_b), 0);
  // As many rails, other names (enumerated differently): by position.
  auto e = Node("gpu-e", "10.0.0.7", {Ib("mlx5_4"), Ib("mlx5_5")});
  EXPECT_EQ(PeerRail(*a, 1, *e), 1);
  // A node without rails: the one TCP path.
  auto f = Node("cpu-f", "10.0.0.8", {});
  EXPECT_EQ(PeerRail(*a, 0, *f), 0);
  // The congestion and failure stages: into b's first rail (mlx5_1) from
  // a's rail of the same name, not a's first.
  EXPECT_EQ(SenderRail(*a, *b, kFirstRail), 1);
  // ... in the class and SL NCCL will use, as two-node's transfers.
  v1::AcceptanceProfile profile;
  profile.set_source("fleet.yaml");
  profile.set_yaml("nccl:\n  env: { NCCL_IB_TC: \"106\", NCCL_IB_SL: \"3\" }\n");
  const v1::Task go = IntoRailTask(profile, *a, *b, kFirstRail, 18515, false, 3);
  EXPECT_EQ(go.run_transfer().device(), "mlx5_1");
  EXPECT_EQ(go.run_transfer().request().op(), v1::WRITE_BW);
  EXPECT_EQ(go.run_transfer().request().traffic_class(), 106u);
  EXPECT_EQ(go.run_transfer().request().service_level(), 3u);
  EXPECT_EQ(
      IntoRailTask(profile, *a, *b, kFirstRail, 18515, true, 1).run_transfer().request().op(),
      v1::WRITE_LAT);
}

v1::Rail Roce(const std::string& device, const std::string& netdev) {
  v1::Rail r = Ib(device);
  r.set_link_layer("Ethernet");
  r.set_netdev(netdev);
  return r;
}

// The profile's rail plan picks the compute rails when --rails does not:
// a storage NIC the agent registered is not measured; --rails still wins;
// a plan that names none of a pair's rails leaves all of them.
TEST(RailTasksTest, TheProfilesRailPlanPicksTheRails) {
  v1::AcceptanceProfile profile;
  profile.set_source("fleet.yaml");
  profile.set_yaml("cabling:\n  expect:\n    ens1f0np0: \"leaf-rail-0-*\"\n");
  const std::vector<std::string> plan = RailPlan(profile);
  ASSERT_EQ(plan, std::vector<std::string>{"ens1f0np0"});
  auto a = Node("gpu-a", "10.0.0.1", {Roce("mlx5_0", "ens1f0np0"), Roce("mlx5_2", "storage0")});
  auto b = Node("gpu-b", "10.0.0.2", {Roce("mlx5_0", "ens1f0np0"), Roce("mlx5_2", "storage0")});
  v1::RunStageRequest req;
  EXPECT_TRUE(RailSelected(req, plan, *a, *b, 0, 2));
  EXPECT_FALSE(RailSelected(req, plan, *a, *b, 1, 2));
  req.add_rails("storage0");
  EXPECT_FALSE(RailSelected(req, plan, *a, *b, 0, 2));
  EXPECT_TRUE(RailSelected(req, plan, *a, *b, 1, 2));
  auto c = Node("gpu-c", "10.0.0.3", {Roce("mlx5_4", "eth4")});
  auto d = Node("gpu-d", "10.0.0.4", {Roce("mlx5_4", "eth4")});
  EXPECT_TRUE(RailSelected(v1::RunStageRequest(), plan, *c, *d, 0, 1));
  EXPECT_TRUE(RailSelected(v1::RunStageRequest(), {}, *a, *b, 1, 2));
}

// --gpu-memory: each end's task names its rail's GPU by PCI address; a rail
// without one (no GPU on the node) stays on host memory.
TEST(RailTasksTest, GpuMemoryPutsEachEndsBufferOnItsRailsGpu) {
  v1::Rail near = Ib("mlx5_0");
  near.set_gpu_bus_id("0000:19:00.0");
  auto a = Node("gpu-a", "10.0.0.1", {near});
  auto b = Node("cpu-b", "10.0.0.2", {Ib("mlx5_0")});
  v1::Task serve = ServeTask(*a, 0);
  OnRailGpu(*a, 0, &serve);
  EXPECT_EQ(serve.serve_transfer().gpu_bus_id(), "0000:19:00.0");
  v1::Task go = TransferTask(*a, *b, 0, 18515, v1::WRITE_BW, 3);
  OnRailGpu(*a, 0, &go);
  EXPECT_EQ(go.run_transfer().gpu_bus_id(), "0000:19:00.0");
  v1::Task host = TransferTask(*b, *a, 0, 18515, v1::WRITE_BW, 3);
  OnRailGpu(*b, 0, &host);
  EXPECT_TRUE(host.run_transfer().gpu_bus_id().empty());
}

// A pair is recorded under the path it took: a rail's name only when the
// traffic was the rail's; TCP to the agent's own address is "management".
TEST(RailTasksTest, APairIsNamedForThePathItTook) {
  auto a = Node("gpu-a", "10.0.0.1", {RoceWith("mlx5_0", "192.168.1.2")});
  auto bare = Node("gpu-b", "10.0.0.2", {RoceWith("mlx5_0", "")});
  auto none = Node("cpu-c", "10.0.0.3", {});
  EXPECT_EQ(MeasuredPath(*bare, 0, *a, 0), "mlx5_0:1");    // RDMA to a's address
  EXPECT_EQ(MeasuredPath(*none, 0, *bare, 0), "management");  // TCP to the agent's address
  EXPECT_EQ(MeasuredPath(*a, 0, *none, 0), "tcp");
  auto ib = Node("gpu-d", "10.0.0.4", {Ib("mlx5_0")});
  auto ib2 = Node("gpu-e", "10.0.0.5", {Ib("mlx5_0")});
  EXPECT_EQ(MeasuredPath(*ib, 0, *ib2, 0), "mlx5_0:1");  // IB by LID, no IPoIB needed
}

}  // namespace
}  // namespace nodeprobe::coordinator
