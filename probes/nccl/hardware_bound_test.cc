// The bound busbw is held to when the profile sets no bar, and the judge's
// use of it: WARN below the share, the ratio in the evidence either way.
#include "probes/nccl/hardware_bound.h"

#include "gtest/gtest.h"
#include "probes/nccl/collective_judge.h"
#include "probes/nccl/collective_math.h"

namespace nodeprobe::nccl {
namespace {

TEST(HardwareBoundTest, NvlinkPerLinkByVersion) {
  EXPECT_EQ(NvlinkLinkGBps(1), 20);
  EXPECT_EQ(NvlinkLinkGBps(3), 25);
  EXPECT_EQ(NvlinkLinkGBps(4), 25);
  EXPECT_EQ(NvlinkLinkGBps(5), 50);
  EXPECT_EQ(NvlinkLinkGBps(0), 0);
  EXPECT_EQ(NvlinkLinkGBps(9), 0);
}

TEST(HardwareBoundTest, NvlinkNodeIsBoundByTheGpuWithFewestLinks) {
  // An HGX H100/H200 board: 18 NVLink 4 links per GPU; one GPU lost two.
  std::vector<GpuPath> gpus;
  for (int i = 0; i < 8; ++i) {
    gpus.push_back({"0000:1" + std::to_string(i) + ":00.0", i == 5 ? 16u : 18u, 4, std::nullopt});
  }
  const HardwareBound b = LocalBound(gpus);
  EXPECT_DOUBLE_EQ(b.gbps, 400);  // 16 x 25
  EXPECT_NE(b.basis.find("16 active links"), std::string::npos) << b.basis;
  EXPECT_NE(b.basis.find("0000:15:00.0"), std::string::npos) << b.basis;
}

TEST(HardwareBoundTest, PcieNodeIsBoundByTheSlowestGpuLink) {
  // The H200 lent here trained at 32 GT/s x16 (57.6 GB/s payload); a second
  // GPU at x8 halves it. No NVLink on either.
  const HardwareBound b = LocalBound({{"0000:00:06.0", 0, 0, pcie::PcieLink{32, 16}},
                                      {"0000:00:07.0", 0, 0, pcie::PcieLink{32, 8}}});
  EXPECT_NEAR(b.gbps, 28.8, 0.05);
  EXPECT_NE(b.basis.find("x8 on GPU 0000:00:07.0"), std::string::npos) << b.basis;
  // One GPU on NVLink and one without is not an NVLink node.
  EXPECT_NEAR(LocalBound({{"a", 18, 4, pcie::PcieLink{32, 16}},
                          {"b", 0, 0, pcie::PcieLink{32, 16}}}).gbps,
              57.6, 0.05);
}

TEST(HardwareBoundTest, UnknownLinksGiveNoBound) {
  EXPECT_EQ(LocalBound({}).gbps, 0);
  EXPECT_EQ(LocalBound({{"a", 0, 0, pcie::PcieLink{16, 16}}, {"b", 0, 0, std::nullopt}}).gbps, 0);
  EXPECT_EQ(RailBound({{"n1", {400, 400}, ""}, {"n2", {400, 0}, ""}}).gbps, 0);
  EXPECT_EQ(RailBound({{"n1", {400}, ""}, {"n2", {}, ""}}).gbps, 0);
}

TEST(HardwareBoundTest, NodesAreBoundByTheirSlowestRailTimesRails) {
  // n2 has one rail trained at 200 Gb/s: 8 x 200 / 8 = 200 GB/s.
  const HardwareBound b = RailBound({{"n1", std::vector<double>(8, 400), ""},
                                     {"n2", {400, 400, 400, 200, 400, 400, 400, 400}, ""}});
  EXPECT_DOUBLE_EQ(b.gbps, 200);
  EXPECT_NE(b.basis.find("8 x 200.0 Gb/s"), std::string::npos) << b.basis;
  EXPECT_NE(b.basis.find("n2"), std::string::npos) << b.basis;
}

// `n` ranks, 8 a node, that ran `collective` at 1 GiB in `us` each.
std::vector<RankAnswer> Ranks(int n, const std::string& collective, double us) {
  std::vector<RankAnswer> answers;
  for (int r = 0; r < n; ++r) {
    RankAnswer a;
    a.rank = static_cast<uint32_t>(r);
    a.node = "n" + std::to_string(r / 8);
    v1::ProbeResult res;
    res.set_probe("nccl");
    v1::CollectiveRank* me = res.mutable_collective()->add_ranks();
    me->set_state("done");
    v1::CollectiveRow* row = me->add_rows();
    row->set_collective(collective);
    row->set_size(1ull << 30);
    row->set_time_us(us);
    row->set_in_place_time_us(us);
    a.result = res;
    answers.push_back(a);
  }
  return answers;
}

// Two ranks that ran all_reduce at 1 GiB in `us` microseconds each.
std::vector<RankAnswer> TwoRanks(double us) { return Ranks(2, "all_reduce", us); }

TEST(HardwareBoundTest, JudgeWarnsBelowTheShareOfTheHardwareAndStatesTheRatio) {
  NcclLogContext ctx;
  ctx.run_shape.intra = {50, "NVLink"};
  ctx.hardware_min_fraction = 0.6;
  // 2 ranks: busbw = algbw x 2(n-1)/n = algbw. 1 GiB in 23,000 us: 46.7 GB/s.
  v1::ProbeResult healthy = JudgeCollectiveRun(TwoRanks(23000), ctx, "test");
  EXPECT_EQ(healthy.findings_size(), 0);
  EXPECT_NE(healthy.evidence().at("expected.all_reduce").find("93% of the hardware's 50.0 GB/s"),
            std::string::npos)
      << healthy.evidence().at("expected.all_reduce");
  // 1 GiB in 43,000 us: 25.0 GB/s, half the rail.
  v1::ProbeResult slow = JudgeCollectiveRun(TwoRanks(43000), ctx, "test");
  ASSERT_EQ(slow.findings_size(), 1);
  EXPECT_EQ(slow.findings(0).code(), "NCCL_BUSBW_BELOW_HARDWARE");
  EXPECT_EQ(slow.findings(0).severity(), v1::WARN);
  EXPECT_NE(slow.findings(0).message().find("50% of the hardware's"), std::string::npos)
      << slow.findings(0).message();
  // The profile's bar wins over the hardware; the ratio is still stated.
  ctx.busbw_min_gbps["all_reduce"] = 20;
  v1::ProbeResult barred = JudgeCollectiveRun(TwoRanks(43000), ctx, "test");
  EXPECT_EQ(barred.findings_size(), 0);
  EXPECT_NE(barred.evidence().at("expected.all_reduce").find("50% of the hardware's"),
            std::string::npos);
}

TEST(HardwareBoundTest, OneRankCrossesNoLink) {
  NcclLogContext ctx;
  ctx.run_shape.intra = {57.6, "PCIe"};
  std::vector<RankAnswer> one = TwoRanks(10);
  one.pop_back();
  one[0].result->mutable_collective()->mutable_ranks(0)->mutable_rows(0)->set_collective(
      "broadcast");
  v1::ProbeResult r = JudgeCollectiveRun(one, ctx, "test");
  EXPECT_EQ(r.findings_size(), 0);
  EXPECT_NE(r.evidence().at("expected.broadcast").find("one rank crosses no link"),
            std::string::npos)
      << r.evidence().at("expected.broadcast");
}

// Eight 400 Gb/s rails per node (8 x 50 GB/s = 400 GB/s), G = 8 GPUs per
// node: the bounds item 5 of issue 45 names.
RunShape EightRails(uint32_t nodes) {
  RunShape shape;
  shape.nodes = nodes;
  shape.ranks_per_node = 8;
  std::vector<NodeRails> rails;
  for (uint32_t i = 0; i < nodes; ++i) {
    rails.push_back({"n" + std::to_string(i), std::vector<double>(8, 400), ""});
  }
  shape.rails = RailBound(rails);
  return shape;
}

TEST(HardwareBoundTest, EachCollectiveHasItsOwnBoundAcrossNodes) {
  const RunShape two = EightRails(2), sixteen = EightRails(16);
  EXPECT_DOUBLE_EQ(CollectiveBound("all_reduce", 16, two).gbps, 400);
  EXPECT_DOUBLE_EQ(CollectiveBound("reduce_scatter", 128, sixteen).gbps, 400);
  // alltoall: R.B.(n-1)/(G.(n-G)): 400 x 15 / (8 x 8) on 2 x 8 GPUs,
  // 400 x 127 / (8 x 120) on 16 x 8 (~ R.B/G = 50 at scale).
  EXPECT_DOUBLE_EQ(CollectiveBound("alltoall", 16, two).gbps, 93.75);
  EXPECT_NEAR(CollectiveBound("alltoall", 128, sixteen).gbps, 52.92, 0.01);
  EXPECT_NE(CollectiveBound("alltoall", 16, two).basis.find("AlltoAllGetBw"), std::string::npos);
  // sendrecv: one rail per node boundary.
  EXPECT_DOUBLE_EQ(CollectiveBound("sendrecv", 16, two).gbps, 50);
  EXPECT_DOUBLE_EQ(CollectiveBound("sendrecv", 128, sixteen).gbps, 50);
  // No formula, no bound; one node keeps the intra-node bound for all.
  EXPECT_EQ(CollectiveBound("gather", 16, two).gbps, 0);
  RunShape one;
  one.intra = {400, "NVLink"};
  EXPECT_DOUBLE_EQ(CollectiveBound("alltoall", 8, one).gbps, 400);
}

TEST(HardwareBoundTest, PcieOnlyNodesAreBoundByTheirIntraNodeHops) {
  // Two nodes of 8 PCIe Gen5 x16 GPUs without NVLink: the ring's hops
  // inside a node carry at most 57.6 GB/s, below the 400 GB/s of rails.
  RunShape shape = EightRails(2);
  shape.intra = LocalBound({{"0000:00:06.0", 0, 0, pcie::PcieLink{32, 16}}});
  const HardwareBound ring = CollectiveBound("all_reduce", 16, shape);
  EXPECT_NEAR(ring.gbps, 57.6, 0.05);
  EXPECT_NE(ring.basis.find("inside a node"), std::string::npos) << ring.basis;
  EXPECT_NEAR(CollectiveBound("alltoall", 16, shape).gbps, 57.6, 0.05);
  EXPECT_DOUBLE_EQ(CollectiveBound("sendrecv", 16, shape).gbps, 50);
}

TEST(HardwareBoundTest, AHealthyMultiNodeAlltoallAndSendrecvAreNotBelowTheHardware) {
  NcclLogContext ctx;
  ctx.run_shape = EightRails(2);
  ctx.hardware_min_fraction = 0.6;
  // alltoall on 2 x 8 at 80 GB/s busbw (85% of 93.75): algbw = 80 x 16/15
  // = 85.3 GB/s, 1 GiB in 12,580 us. Against the ring's 400 GB/s it was 20%.
  const v1::ProbeResult a2a = JudgeCollectiveRun(Ranks(16, "alltoall", 12580), ctx, "test");
  EXPECT_EQ(a2a.findings_size(), 0) << a2a.DebugString();
  EXPECT_NE(a2a.evidence().at("expected.alltoall").find("of the hardware's 93.8 GB/s"),
            std::string::npos)
      << a2a.evidence().at("expected.alltoall");
  // sendrecv at 45 GB/s: 1 GiB in 23,861 us.
  const v1::ProbeResult p2p = JudgeCollectiveRun(Ranks(16, "sendrecv", 23861), ctx, "test");
  EXPECT_EQ(p2p.findings_size(), 0) << p2p.DebugString();
  // Half the alltoall bound still warns.
  const v1::ProbeResult slow = JudgeCollectiveRun(Ranks(16, "alltoall", 25160), ctx, "test");
  ASSERT_EQ(slow.findings_size(), 1) << slow.DebugString();
  EXPECT_EQ(slow.findings(0).code(), "NCCL_BUSBW_BELOW_HARDWARE");
}

}  // namespace
}  // namespace nodeprobe::nccl
