// The NCCL log parser and its findings, on real logs only
// (tests/fixtures/nccl, provenance in its README).
#include "probes/nccl/nccl_log.h"

#include <algorithm>
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

// A bar that cannot be applied is said, never skipped: the deepops table
// names no collective, the efa one neither.
TEST(NcclLogTest, ABarThatCannotBeAppliedIsAFinding) {
  NcclLogContext c;
  c.busbw_min_gbps["all_reduce"] = 500;
  for (const char* name : {"nccl-tests_4node-dgxa100_all_reduce_perf_table.txt",
                           "efa-ofi_2node-8xa100-p4d_nccl2.9.9_all_reduce_perf.log"}) {
    v1::ProbeResult j = JudgeNcclLog(Parse(name), c);
    EXPECT_EQ(Count(j, "BAR_NOT_APPLIED", v1::WARN), 1) << name << j.DebugString();
    EXPECT_NE(j.verdict(), v1::PASS);
  }
}

// Variants of the 1-node H100 table: the largest size's busbw as nan, then
// negative; the summary line dropped.
TEST(NcclLogTest, InvalidFiguresAreFindingsAndTheLargestValidSizeIsJudged) {
  const std::string text = Read("nccl-tests_1node-8xh100_v2.17.8.log");
  const size_t at = text.find("17179869184");
  ASSERT_NE(at, std::string::npos);
  const size_t eol = text.find('\n', at);
  std::string row = text.substr(at, eol - at);
  // NaN, negative, and figures that nccl-tests would not have printed
  // beside that algbw (busbw is algbw x 2(n-1)/n): each is not judged.
  for (const char* bad : {"nan", "-482.27", "1e308", "99999"}) {
    std::string variant = text;
    std::string changed = row;
    changed.replace(changed.find("482.27"), 6, bad);
    variant.replace(at, row.size(), changed);
    v1::NcclLogReport r = ParseNcclLog(variant);
    NcclLogContext c;
    c.busbw_min_gbps["all_reduce"] = 450;
    v1::ProbeResult j = JudgeNcclLog(r, c);
    EXPECT_GE(Count(j, "NCCL_TESTS_FIGURE_INVALID", v1::WARN), 1) << bad << j.DebugString();
    // 8 GiB, the largest valid size, is judged (and is above 450).
    bool judged_8g = false;
    for (const v1::Measurement& m : j.measurements()) {
      if (m.name() == "nccl_tests_busbw" && m.labels().at("collective") == "all_reduce") {
        judged_8g = m.labels().at("size") == "8589934592";
      }
    }
    EXPECT_TRUE(judged_8g) << bad << j.DebugString();
  }
  std::string no_avg = text;
  const size_t avg = no_avg.find("# Avg bus bandwidth");
  no_avg.erase(avg, no_avg.find('\n', avg) - avg);
  v1::ProbeResult j = JudgeNcclLog(ParseNcclLog(no_avg), NcclLogContext());
  EXPECT_GE(Count(j, "NCCL_TESTS_FIGURE_INVALID", v1::WARN), 1) << j.DebugString();
}

TEST(NcclLogTest, VersionsThatDisagreeAreNamedWithTheirHosts) {
  std::string text = Read("ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log");
  text += "other-host:1:1 [0] NCCL INFO NCCL version 2.18.1+cuda12.1\n";
  v1::ProbeResult j = JudgeNcclLog(ParseNcclLog(text), NcclLogContext());
  ASSERT_EQ(Count(j, "NCCL_VERSIONS_DIFFER", v1::WARN), 1) << j.DebugString();
  for (const v1::Finding& f : j.findings()) {
    if (f.code() != "NCCL_VERSIONS_DIFFER") continue;
    EXPECT_NE(f.message().find("2.18.1 on other-host"), std::string::npos) << f.message();
    EXPECT_NE(f.message().find("2.21.5 on "), std::string::npos) << f.message();
  }
  // 100 000 distinct versions stay bounded.
  std::string flood;
  for (int i = 0; i < 100000; ++i) flood += "h:1:1 [0] NCCL INFO NCCL version 2." + std::to_string(i) + ".0\n";
  v1::NcclLogReport r = ParseNcclLog(flood);
  EXPECT_TRUE(r.truncated());
  EXPECT_LE(r.version_hosts_size(), 64);
  EXPECT_EQ(Count(JudgeNcclLog(r, NcclLogContext()), "NCCL_VERSIONS_DIFFER", v1::WARN), 1);
  EXPECT_EQ(Count(JudgeNcclLog(Parse("ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log"), NcclLogContext()),
                  "NCCL_VERSIONS_DIFFER", v1::WARN),
            0);
}

// Spliced lines leave garbled copies of host names (cut at the front, or
// glued to a table row's last column): the hosts are the real ones.
TEST(NcclLogTest, HostNamesOfSplicedLinesAreNotGarbled) {
  auto hosts = [](const std::string& name) {
    const v1::NcclLogReport r = Parse(name);
    std::set<std::string> out(r.hosts().begin(), r.hosts().end());
    return out;
  };
  EXPECT_EQ(hosts("ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log"),
            (std::set<std::string>{"deepseek-v2-5-0", "deepseek-v2-5-0-1"}));
  EXPECT_EQ(hosts("ib-nogdr_2node_vllm_nccl2.21.5.log"),
            (std::set<std::string>{"llama-3-3-70b-instruct-0", "llama-3-3-70b-instruct-0-1"}));
  EXPECT_EQ(hosts("roce-nogdr_1node-2xa100_nccl2.27.7_all_reduce_perf.log"),
            (std::set<std::string>{"mew0"}));
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

// 1000 versions are more than the report keeps: the count is a floor,
// said so, not "64".
TEST(NcclLogTest, ManyVersionsAreCountedAsAtLeast) {
  std::string text;
  for (int i = 0; i < 1000; ++i) {
    text += "h" + std::to_string(i) + ":1:1 [0] NCCL INFO NCCL version 2." + std::to_string(i) +
            ".1+cuda12.4\n";
  }
  const v1::ProbeResult j = JudgeNcclLog(ParseNcclLog(text), NcclLogContext());
  const v1::Finding* f = nullptr;
  for (const v1::Finding& x : j.findings()) {
    if (x.code() == "NCCL_VERSIONS_DIFFER") f = &x;
  }
  ASSERT_NE(f, nullptr) << j.DebugString();
  EXPECT_EQ(f->message().rfind("at least 64 NCCL versions in one log (more than the report keeps)",
                               0),
            0u)
      << f->message();
}

}  // namespace
}  // namespace nodeprobe::nccl

namespace nodeprobe::nccl {
namespace {

std::string ReadPod(const std::string& name) {
  std::ifstream in(testing::FixturePath("pod-rdma/" + name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> FailCodes(const v1::ProbeResult& r) {
  std::vector<std::string> out;
  for (const v1::Finding& f : r.findings()) {
    if (f.severity() == v1::FAIL || f.severity() == v1::WARN) out.push_back(f.code());
  }
  return out;
}

const v1::Finding* Find(const v1::ProbeResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code) return &f;
  }
  return nullptr;
}

// The healthy logs of the fixtures: no event is invented from them (their
// torch and vLLM WARNING lines are not NCCL's, and the nccl-tests tables
// have no error).
TEST(NcclLogEventsTest, HealthyLogsHoldNoEvents) {
  for (const char* name :
       {"ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log", "ib-nogdr_2node_vllm_nccl2.21.5.log",
        "socket_2node-8gpu_vllm_nccl2.21.5.log", "opa-ib-nogdr_4node-8xa100_nccl2.10.3.log",
        "efa-ofi_2node-8xa100-p4d_nccl2.9.9_all_reduce_perf.log",
        "roce-nogdr_1node-2xa100_nccl2.27.7_all_reduce_perf.log",
        "nccl-tests_1node-8xh100_v2.17.8.log", "nccl-tests_10node-8xh100_v2.17.8.log",
        "nccl-tests_4node-dgxa100_all_reduce_perf_table.txt"}) {
    const v1::NcclLogReport r = Parse(name);
    EXPECT_EQ(r.events_size(), 0) << name << ": " << r.events(0).DebugString();
    const v1::ProbeResult j = JudgeNcclLog(r, NcclLogContext());
    for (const v1::Finding& f : j.findings()) {
      EXPECT_EQ(f.code().find("NCCL_JOB"), std::string::npos) << name << " " << f.code();
      EXPECT_NE(f.code(), "NCCL_LOG_WARNINGS") << name;
    }
  }
}

// A container whose QPs could not be created (slurm + pyxis): each WARN
// is found with its host and CUDA device's process, and the job FAILs.
TEST(NcclLogEventsTest, QpCreationFailuresInAContainerAreTransportFailures) {
  const v1::NcclLogReport r = ParseNcclLog(ReadPod("issue-nccl562-pyxis-container-ibv_create_qp-failed.txt"));
  ASSERT_GE(r.events_size(), 1) << r.DebugString();
  uint32_t lines = 0;
  for (const v1::NcclLogEvent& e : r.events()) {
    EXPECT_EQ(e.kind(), "transport_setup") << e.DebugString();
    EXPECT_EQ(e.host(), "hai-a100-3");
    lines += e.count();
  }
  EXPECT_EQ(lines, 3u);  // ranks' devices 4, 5 and 6
  const v1::ProbeResult j = JudgeNcclLog(r, NcclLogContext());
  EXPECT_EQ(FailCodes(j), std::vector<std::string>{"NCCL_TRANSPORT_FAILED"});
  const v1::Finding* f = Find(j, "NCCL_TRANSPORT_FAILED");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->device(), "hai-a100-3");
  EXPECT_NE(f->message().find("Call to ibv_create_qp failed"), std::string::npos) << f->message();
}

// /dev/shm too small for NCCL, in two real reports (one with a timestamp
// before the prefix): NCCL_SHM_FAILED, nothing else.
TEST(NcclLogEventsTest, SharedMemoryFailuresAreFound) {
  for (const char* name : {"issue-nccltests166-dev-shm-failed-to-extend.txt",
                           "issue-pytorch-ciinfra490-k8s-pod-dev-shm-full.txt"}) {
    const v1::NcclLogReport r = ParseNcclLog(ReadPod(name));
    const v1::ProbeResult j = JudgeNcclLog(r, NcclLogContext());
    EXPECT_EQ(FailCodes(j), std::vector<std::string>{"NCCL_SHM_FAILED"}) << name << j.DebugString();
    for (const v1::NcclLogEvent& e : r.events()) EXPECT_FALSE(e.host().empty()) << name;
  }
}

// Lines as printed by a Perlmutter job (NET/OFI registration failures, the
// format quoted in public reports) and by a Polaris job's PyTorch watchdog:
// they read FAIL, not PASS; ranks come from the init lines and [rankN].
TEST(NcclLogEventsTest, RegistrationFailuresAndWatchdogTimeoutsFail) {
  std::string log =
      "nid001264:1291155:1291155 [1] NCCL INFO NCCL version 2.18.3+cuda12.2\n"
      "nid001264:1291155:1291155 [1] NCCL INFO comm 0x5604 rank 5 nranks 8 cudaDev 1 nvmlDev 1 "
      "busId 41000 commId 0x1 - Init COMPLETE\n";
  for (int i = 0; i < 32; ++i) {
    log += "nid001264:1291155:1293014 [1] register_mr_buffers:647 NCCL WARN NET/OFI Unable to "
           "register memory (type = 2) for device " + std::to_string(i % 4) +
           ". RC: -22, Error: Invalid argument\n";
  }
  const v1::NcclLogReport r = ParseNcclLog(log);
  ASSERT_EQ(r.events_size(), 1) << r.DebugString();
  EXPECT_EQ(r.events(0).kind(), "memory_registration");
  EXPECT_EQ(r.events(0).count(), 32u);
  EXPECT_EQ(r.events(0).rank(), 5);  // process 1291155's rank
  v1::ProbeResult j = JudgeNcclLog(r, NcclLogContext());
  EXPECT_EQ(FailCodes(j), std::vector<std::string>{"NCCL_MEMORY_REGISTRATION_FAILED"});
  EXPECT_NE(Find(j, "NCCL_MEMORY_REGISTRATION_FAILED")->message().find("32 line(s)"),
            std::string::npos);

  const std::string polaris =
      "[rank1]:[E ProcessGroupNCCL.cpp:563] [Rank 1] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=1, OpType=ALLGATHER, NumelIn=1, NumelOut=2, Timeout(ms)=600000) "
      "ran for 600360 milliseconds before timing out.\n"
      "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 1\n"
      "srun: error: x3004c0s7b0n0: task 1: Aborted\n";
  const v1::NcclLogReport t = ParseNcclLog(polaris);
  j = JudgeNcclLog(t, NcclLogContext());
  EXPECT_NE(j.verdict(), v1::PASS);
  const v1::Finding* timeout = Find(j, "NCCL_JOB_TIMEOUT");
  ASSERT_NE(timeout, nullptr) << j.DebugString();
  EXPECT_NE(timeout->message().find("first ALLGATHER SeqNum=1 on rank 1"), std::string::npos)
      << timeout->message();
  EXPECT_NE(Find(j, "NCCL_JOB_KILLED"), nullptr) << j.DebugString();
}

TEST(NcclLogEventsTest, ErrorsAbortsAndUnclassifiedWarningsAreFindings) {
  const std::string log =
      "node1:10:10 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Abort COMPLETE\n"
      "node1:10:11 [0] transport.cc:12 NCCL WARN Something NCCL did not plan 7\n"
      "node1:10:11 [0] transport.cc:12 NCCL WARN Something NCCL did not plan 8\n"
      "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1269, unhandled system error, "
      "NCCL version 2.18.1\n"
      "ncclSystemError: System call (e.g. socket, malloc) or external library call failed\n";
  const v1::ProbeResult j = JudgeNcclLog(ParseNcclLog(log), NcclLogContext());
  int errors = 0;
  for (const v1::Finding& f : j.findings()) errors += f.code() == "NCCL_JOB_ERROR";
  EXPECT_EQ(errors, 2) << j.DebugString();  // the error lines, and the abort without an init
  const v1::Finding* w = Find(j, "NCCL_LOG_WARNINGS");
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(w->severity(), v1::WARN);
  EXPECT_NE(w->message().find("2 x \"Something NCCL did not plan 7\""), std::string::npos)
      << w->message();
}

TEST(NcclLogEventsTest, NoIbDeviceWhenAHcaWasAskedForIsATransportFailure) {
  const std::string log =
      "pod-0:1:1 [0] NCCL INFO NCCL_IB_HCA set by environment to mlx5_0\n"
      "pod-0:1:1 [0] NCCL INFO NET/IB : No device found.\n";
  const v1::ProbeResult j = JudgeNcclLog(ParseNcclLog(log), NcclLogContext());
  const v1::Finding* f = Find(j, "NCCL_TRANSPORT_FAILED");
  ASSERT_NE(f, nullptr) << j.DebugString();
  EXPECT_NE(f->message().find("NCCL_IB_HCA=mlx5_0"), std::string::npos);
}

// PXN (NCCL >= 2.12, the default on NVSwitch nodes): rank 9 (GPU 1) sends
// through rank 8's NIC ("NET/IB/0(8)/GDRDMA", as a public 2 x 8 GPU log
// prints it). Its GDR is on and the NIC is GPU 0's rail, not GPU 1's.
TEST(NcclLogTest, PxnPathsAreGdrAndJudgedAgainstTheProxyGpusRail) {
  const std::string log =
      "tpgds-aihub0008:181411:181411 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE "
      "[1]mlx5_1:1/RoCE [RO]; OOB eth0:10.1.0.8<0>\n"
      "tpgds-aihub0008:181412:181412 [1] NCCL INFO Channel 00/0 : 9[1] -> 0[0] [send] via "
      "NET/IB/0(8)/GDRDMA\n"
      "tpgds-aihub0008:181411:181411 [0] NCCL INFO Channel 00/0 : 1[1] -> 8[0] [receive] via "
      "NET/IB/0/GDRDMA\n"
      "tpgds-aihub0008:181411:181411 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [send] via "
      "NET/IB/0/GDRDMA\n"
      "tpgds-aihub0008:181411:181411 [0] NCCL INFO ncclCommInitRank comm 0x5584f0195160 rank 8 "
      "nranks 16 cudaDev 0 nvmlDev 0 busId 18000 commId 0x45a3a89de169ea18 - Init COMPLETE\n"
      "tpgds-aihub0008:181412:181412 [1] NCCL INFO ncclCommInitRank comm 0x556e4ac80ae0 rank 9 "
      "nranks 16 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x45a3a89de169ea18 - Init COMPLETE\n";
  const v1::NcclLogReport r = ParseNcclLog(log);
  EXPECT_EQ(Connections(r, "NET/IB", true), 3u);
  EXPECT_EQ(Connections(r, "NET/IB", false), 0u);
  const v1::NcclNetPath* pxn = nullptr;
  for (const v1::NcclNetPath& p : r.net_paths()) {
    if (p.gpu_bus_id() == "0000:2a:00.0") pxn = &p;
  }
  ASSERT_NE(pxn, nullptr) << r.DebugString();
  EXPECT_TRUE(pxn->gdr());
  EXPECT_EQ(pxn->device_name(), "mlx5_0");
  ASSERT_TRUE(pxn->has_proxy_rank());
  EXPECT_EQ(pxn->proxy_rank(), 8);
  EXPECT_EQ(pxn->proxy_gpu_bus_id(), "0000:18:00.0");
  NcclLogContext c;
  c.gdr_expected = true;
  c.rails = {{"0000:18:00.0", {"mlx5_0"}}, {"0000:2a:00.0", {"mlx5_1"}}};
  c.topology_source = "test topology";
  const v1::ProbeResult healthy = JudgeNcclLog(r, c);
  EXPECT_EQ(healthy.findings_size(), 0) << healthy.DebugString();
  // The proxy's GPU on another rail is still a mismatch, and says PXN.
  c.rails["0000:18:00.0"] = {"mlx5_1"};
  const v1::ProbeResult wrong = JudgeNcclLog(r, c);
  const v1::Finding* f = Find(wrong, "NCCL_HCA_MISMATCH");
  ASSERT_NE(f, nullptr) << wrong.DebugString();
  EXPECT_NE(f->message().find("PXN: for GPU 0000:2a:00.0 through rank 8"), std::string::npos)
      << f->message();
}

// NCCL 2.30 puts the function after file:line in a WARN's prefix
// ("[%d] %s:%d (%s) NCCL WARN %s"): host, pid and rank still come through.
TEST(NcclLogEventsTest, WarningsWithTheFunctionInTheirPrefixKeepHostAndRank) {
  const std::string log =
      "worker-0:862519:862519 [0] NCCL INFO comm 0x55d0 rank 3 nranks 16 cudaDev 0 nvmlDev 0 "
      "busId 18000 commId 0x1 - Init COMPLETE\n"
      "worker-0:862519:862553 [0] misc/ibvwrap.cc:213 (wrap_ibv_reg_mr_iova2) NCCL WARN Call to "
      "ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"
      "worker-0:862519:862553 [0] NCCL INFO transport/net_ib/reg.cc:81 "
      "(ncclIbRegMrDmaBufInternal) -> 2\n";
  const v1::NcclLogReport r = ParseNcclLog(log);
  EXPECT_EQ(r.nccl_lines(), 3u);
  ASSERT_EQ(r.hosts_size(), 1) << r.DebugString();
  EXPECT_EQ(r.hosts(0), "worker-0");
  ASSERT_EQ(r.events_size(), 1) << r.DebugString();
  EXPECT_EQ(r.events(0).host(), "worker-0");
  EXPECT_EQ(r.events(0).pid(), 862519u);
  EXPECT_EQ(r.events(0).rank(), 3);
}

// CR-only line ends (a log written through a progress bar) hide nothing,
// and CRLF split across pieces is one line end.
TEST(NcclLogEventsTest, AnyLineEndingIsALineEnd) {
  const std::string lf = Read("socket_2node-8gpu_vllm_nccl2.21.5.log");
  std::string cr = lf, crlf;
  std::replace(cr.begin(), cr.end(), '\n', '\r');
  for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const v1::NcclLogReport a = ParseNcclLog(lf);
  const v1::NcclLogReport b = ParseNcclLog(cr);
  NcclLogParser pieces;
  for (size_t i = 0; i < crlf.size(); i += 7) pieces.AddText(std::string_view(crlf).substr(i, 7));
  pieces.Flush();
  const v1::NcclLogReport c = pieces.Report();
  EXPECT_TRUE(b.cr_line_endings());
  EXPECT_FALSE(c.cr_line_endings());
  for (const v1::NcclLogReport* r : {&b, &c}) {
    EXPECT_EQ(r->lines(), a.lines());
    EXPECT_EQ(r->nccl_lines(), a.nccl_lines());
    EXPECT_TRUE(r->ib_no_device());
    EXPECT_EQ(Connections(*r, "NET/Socket", false), Connections(a, "NET/Socket", false));
  }
  NcclLogContext rdma;
  rdma.rdma_expected = true;
  EXPECT_GE(Count(JudgeNcclLog(b, rdma), "NCCL_FELL_BACK_TO_SOCKETS", v1::FAIL), 1);
  EXPECT_FALSE(a.not_utf8());
  EXPECT_TRUE(ParseNcclLog("host:1:1 [0] NCCL INFO caf\xe9\n").not_utf8());
}

}  // namespace
}  // namespace nodeprobe::nccl
