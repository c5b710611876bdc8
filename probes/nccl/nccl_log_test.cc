// The NCCL log parser and its findings, on real logs only
// (tests/fixtures/nccl, provenance in its README).
#include "probes/nccl/nccl_log.h"

#include <fstream>
#include <set>
#include <sstream>

#include "gtest/gtest.h"
#include "probes/nccl/nccl_log_judge.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::nccl {
namespace {

std::string Read(const std::string& name) {
  std::ifstream in(testing::FixturePath("nccl/" + name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

v1::NcclLogReport Parse(const std::string& name) { return ParseNcclLog(Read(name)); }

int Count(const v1::ProbeResult& r, const std::string& code, v1::Verdict severity) {
  int n = 0;
  for (const v1::Finding& f : r.findings()) n += f.code() == code && f.severity() == severity;
  return n;
}

uint32_t Connections(const v1::NcclLogReport& r, const std::string& transport, bool gdr) {
  uint32_t n = 0;
  for (const v1::NcclTransportUse& t : r.transports()) {
    if (t.transport() == transport && t.gdr() == gdr) n += t.connections();
  }
  return n;
}

TEST(NcclBusIdTest, IsNcclsInt64Layout) {
  EXPECT_EQ(NcclBusIdToPci("101c0"), "0000:10:1c.0");
  EXPECT_EQ(NcclBusIdToPci("7000"), "0000:07:00.0");
  EXPECT_EQ(NcclBusIdToPci("100000"), "0001:00:00.0");  // Azure: one domain per GPU
  EXPECT_EQ(NcclBusIdToPci("zz"), "");
}

TEST(NcclLogTest, InfinibandWithGpuDirectRdmaIsClean) {
  v1::NcclLogReport r = Parse("ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log");
  ASSERT_EQ(r.versions_size(), 1);
  EXPECT_EQ(r.versions(0), "2.21.5+cuda12.4");
  ASSERT_EQ(r.networks_size(), 1);
  EXPECT_EQ(r.networks(0), "IB");
  int ib = 0;
  for (const v1::NcclNetDevice& d : r.devices()) {
    if (d.network() != "IB") continue;
    ++ib;
    EXPECT_EQ(d.port(), 1u);
    EXPECT_EQ(d.link_layer(), "IB");
    EXPECT_EQ(d.name(), "mlx5_" + std::to_string(d.index()));
  }
  EXPECT_EQ(ib, 8);
  EXPECT_GT(Connections(r, "NET/IB", true), 0u);
  EXPECT_EQ(Connections(r, "NET/IB", false), 0u);
  EXPECT_GT(Connections(r, "P2P/IPC", false), 0u);
  EXPECT_EQ(r.env().at("NCCL_NET_GDR_LEVEL"), "SYS");
  // The Ray prefix does not hide the pod names.
  bool second_pod = false;
  for (const std::string& h : r.hosts()) second_pod |= h == "deepseek-v2-5-0-1";
  EXPECT_TRUE(second_pod);
  v1::ProbeResult j = JudgeNcclLog(r, {});
  EXPECT_EQ(j.findings_size(), 0) << j.DebugString();
  EXPECT_EQ(j.evidence().at("nccl.network"), "IB");
}

TEST(NcclLogTest, InterNodeConnectionsWithoutGdrAreNamed) {
  v1::NcclLogReport r = Parse("ib-nogdr_2node_vllm_nccl2.21.5.log");
  EXPECT_GT(Connections(r, "NET/IB", false), 0u);
  EXPECT_EQ(Connections(r, "NET/IB", true), 0u);
  // The log alone cannot say GDR was possible: a warning.
  v1::ProbeResult j = JudgeNcclLog(r, {});
  EXPECT_EQ(Count(j, "NCCL_GDR_OFF", v1::WARN), 1) << j.DebugString();
  NcclLogContext c;
  c.gdr_expected = true;
  EXPECT_EQ(Count(JudgeNcclLog(r, c), "NCCL_GDR_OFF", v1::FAIL), 1);
  EXPECT_EQ(Count(j, "NCCL_FELL_BACK_TO_SOCKETS", v1::WARN) +
                Count(j, "NCCL_FELL_BACK_TO_SOCKETS", v1::FAIL),
            0);
}

TEST(NcclLogTest, SocketFallbackIsAFailWhenTheNodesHaveRdma) {
  v1::NcclLogReport r = Parse("socket_2node-8gpu_vllm_nccl2.21.5.log");
  EXPECT_TRUE(r.ib_no_device());
  EXPECT_GT(Connections(r, "NET/Socket", false), 0u);
  bool eth0 = false;
  for (const v1::NcclNetDevice& d : r.devices()) {
    eth0 |= d.network() == "Socket" && d.name() == "eth0" && !d.address().empty();
  }
  EXPECT_TRUE(eth0);
  v1::ProbeResult j = JudgeNcclLog(r, {});
  ASSERT_EQ(Count(j, "NCCL_FELL_BACK_TO_SOCKETS", v1::WARN), 1) << j.DebugString();
  EXPECT_NE(j.findings(0).message().find("No device found"), std::string::npos);
  NcclLogContext c;
  c.rdma_expected = true;
  EXPECT_EQ(Count(JudgeNcclLog(r, c), "NCCL_FELL_BACK_TO_SOCKETS", v1::FAIL), 1);
}

TEST(NcclLogTest, OmniPathRanksAndTheirNicsAreResolved) {
  v1::NcclLogReport r = Parse("opa-ib-nogdr_4node-8xa100_nccl2.10.3.log");
  EXPECT_EQ(r.versions(0), "2.10.3+cuda11.3");
  EXPECT_EQ(r.hosts_size(), 4);
  int ranks_of_32 = 0;
  for (const v1::NcclRank& k : r.ranks()) ranks_of_32 += k.nranks() == 32;
  EXPECT_EQ(ranks_of_32, 32);
  // "15[cb000] -> 16[7000] [send] via NET/IB/3": GPU cb:00.0 sends on
  // device 3 of "[0]hfi1_1 [1]hfi1_0 [2]hfi1_2 [3]hfi1_3".
  bool found = false;
  for (const v1::NcclNetPath& p : r.net_paths()) {
    found |= p.gpu_bus_id() == "0000:cb:00.0" && p.net_device() == 3 &&
             p.device_name() == "hfi1_3";
  }
  EXPECT_TRUE(found) << r.DebugString();
  // A topology whose rail for that GPU is hfi1_1 makes it a mismatch.
  NcclLogContext c;
  c.rails["0000:cb:00.0"] = {"hfi1_1"};
  c.rails["0000:07:00.0"] = {"hfi1_0"};
  c.topology_source = "test.xml";
  v1::ProbeResult j = JudgeNcclLog(r, c);
  int mismatches = 0;
  for (const v1::Finding& f : j.findings()) {
    if (f.code() != "NCCL_HCA_MISMATCH") continue;
    ++mismatches;
    EXPECT_NE(f.message().find("GPU 0000:cb:00.0"), std::string::npos) << f.message();
    EXPECT_EQ(f.device(), "hfi1_3");
  }
  EXPECT_GT(mismatches, 0) << j.DebugString();
}

TEST(NcclLogTest, EfaPluginConnectionsCountAsRdmaWithGdr) {
  v1::NcclLogReport r = Parse("efa-ofi_2node-8xa100-p4d_nccl2.9.9_all_reduce_perf.log");
  EXPECT_EQ(r.provider(), "efa");
  EXPECT_EQ(r.networks(0), "AWS Libfabric");
  EXPECT_EQ(Connections(r, "NET/AWS Libfabric", true), 64u);
  EXPECT_EQ(JudgeNcclLog(r, {}).findings_size(), 0);
}

TEST(NcclLogTest, RoceSingleNodeRecordsGdrDisabledHcasAndNoNetwork) {
  v1::NcclLogReport r = Parse("roce-nogdr_1node-2xa100_nccl2.27.7_all_reduce_perf.log");
  EXPECT_EQ(r.versions(0), "2.27.7+cuda13.0");
  std::set<std::string> hcas(r.gdr_disabled_hcas().begin(), r.gdr_disabled_hcas().end());
  EXPECT_EQ(hcas, (std::set<std::string>{"mlx5_0", "mlx5_1", "mlx5_0+mlx5_1"}));
  int roce = 0;
  for (const v1::NcclNetDevice& d : r.devices()) roce += d.link_layer() == "RoCE";
  EXPECT_EQ(roce, 2);
  EXPECT_EQ(Connections(r, "P2P/direct pointer", false), 48u);
  for (const v1::NcclTransportUse& t : r.transports()) EXPECT_FALSE(t.network());
  EXPECT_EQ(r.env().at("NCCL_TOPO_DUMP_FILE"), "nccl_topo_dump.xml");
  EXPECT_EQ(JudgeNcclLog(r, {}).findings_size(), 0);
}

TEST(NcclLogTest, TextWithoutNcclOutputIsAnErrorNotAPass) {
  v1::ProbeResult j = JudgeNcclLog(ParseNcclLog("Traceback (most recent call last):\n"), {});
  EXPECT_EQ(Count(j, "NCCL_LOG_EMPTY", v1::ERROR), 1);
}

TEST(NcclLogTest, NcclTestsOutputAloneIsJudgedAndWrongResultsFail) {
  std::string text = Read("nccl-tests_1node-8xh100_v2.17.8.log");
  v1::ProbeResult clean = JudgeNcclLog(ParseNcclLog(text), {});
  EXPECT_EQ(clean.findings_size(), 0) << clean.DebugString();
  EXPECT_EQ(clean.measurements_size(), 5);
  EXPECT_NE(clean.evidence().at("nccl.debug").find("NCCL_DEBUG=INFO"), std::string::npos);
  // Variant: the first all_reduce row's out-of-place #wrong set to 5.
  const std::string row =
      "    33554432       4194304    double     sum      -1   182.87  183.49  321.10       0";
  const size_t at = text.find(row);
  ASSERT_NE(at, std::string::npos);
  text.replace(at + row.size() - 1, 1, "5");
  v1::ProbeResult wrong = JudgeNcclLog(ParseNcclLog(text), {});
  ASSERT_EQ(Count(wrong, "NCCL_WRONG_RESULT", v1::FAIL), 1) << wrong.DebugString();
  EXPECT_NE(wrong.findings(0).message().find("all_reduce: 1 size(s) with wrong elements"),
            std::string::npos)
      << wrong.findings(0).message();
}

TEST(NcclLogTest, TheProfilesBusBandwidthBarJudgesTheLargestSize) {
  // all_reduce on 8 H100s peaks at 482.27 GB/s busbw at 16 GiB.
  v1::NcclLogReport r = Parse("nccl-tests_1node-8xh100_v2.17.8.log");
  NcclLogContext c;
  c.profile_source = "fleet.yaml";
  c.busbw_min_gbps["all_reduce"] = 450;
  EXPECT_EQ(Count(JudgeNcclLog(r, c), "NCCL_BUSBW_BELOW_EXPECTED", v1::FAIL), 0);
  c.busbw_min_gbps["all_reduce"] = 500;
  v1::ProbeResult j = JudgeNcclLog(r, c);
  ASSERT_EQ(Count(j, "NCCL_BUSBW_BELOW_EXPECTED", v1::FAIL), 1) << j.DebugString();
  EXPECT_NE(j.findings(0).message().find("busbw 482.27 GB/s (out-of-place), below the "
                                         "profile's 500.00 GB/s (fleet.yaml)"),
            std::string::npos)
      << j.findings(0).message();
}

TEST(NcclLogTest, HugeLinesAndEndlessListsStayBounded) {
  // A real line, then one far past the line limit, then a flood of distinct
  // fake hosts: the parser cuts, counts and says so.
  std::string text = Read("socket_2node-8gpu_vllm_nccl2.21.5.log");
  text += std::string(kMaxLineBytes * 3, 'x') + "\n";
  for (int i = 0; i < 6000; ++i) {
    text += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO Using network Socket\n";
  }
  v1::NcclLogReport r = ParseNcclLog(text);
  EXPECT_TRUE(r.truncated());
  EXPECT_LE(r.hosts_size(), 4096);
  EXPECT_TRUE(r.ib_no_device());
}

}  // namespace
}  // namespace nodeprobe::nccl
