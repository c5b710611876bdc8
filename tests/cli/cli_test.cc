// The `nodeprobe` command end to end: exit codes, JSON shape, one-line
// errors for bad input, and an honest verdict on this (GPU-less, NIC-less)
// machine.
#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/result.pb.h"
#include "probes/builtin_probes.h"
#include "probes/framework/profile_keys.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::CommandResult;
using ::nodeprobe::testing::LineCount;
using ::nodeprobe::testing::WriteFile;

CommandResult Nodeprobe(const std::vector<std::string>& args) {
  return testing::RunBinary(NODEPROBE_BINARY, args);
}

v1::StageReport ParseReport(const std::string& json) {
  v1::StageReport report;
  auto status = google::protobuf::util::JsonStringToMessage(json, &report);
  EXPECT_TRUE(status.ok()) << status.ToString() << "\n" << json;
  return report;
}

const v1::ProbeResult* ResultOf(const v1::StageReport& r, const std::string& probe) {
  for (const auto& p : r.results()) {
    if (p.probe() == probe) return &p;
  }
  return nullptr;
}

TEST(CliTest, SingleNodeOnThisMachineIsHonest) {
  if (access("/sys/class/infiniband", F_OK) == 0) {
    GTEST_SKIP() << "this machine has RDMA devices; the test expects none";
  }
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  v1::StageReport report = ParseReport(r.out);
  EXPECT_EQ(report.stage(), v1::SINGLE_NODE);
  ASSERT_NE(ResultOf(report, "inventory"), nullptr);
  EXPECT_EQ(ResultOf(report, "inventory")->verdict(), v1::PASS);
  ASSERT_NE(ResultOf(report, "rdma-devices"), nullptr);
  EXPECT_EQ(ResultOf(report, "rdma-devices")->verdict(), v1::SKIP);
  EXPECT_EQ(report.verdict(), v1::PASS);
  // The PASS says how little it rests on: the JSON counts, the table's
  // first line says it.
  EXPECT_EQ(report.coverage().total(), static_cast<uint32_t>(report.results_size()));
  EXPECT_GE(report.coverage().judged(), 1u);
  EXPECT_LT(report.coverage().judged(), report.coverage().total());
  EXPECT_EQ(report.coverage().judged() + report.coverage().not_applicable() +
                report.coverage().not_run(),
            report.coverage().total());
  EXPECT_NE(std::find(report.coverage().causes().begin(), report.coverage().causes().end(),
                      "no GPU"),
            report.coverage().causes().end());
  CommandResult table = Nodeprobe({"run", "--stage", "single-node"});
  const std::string first = table.out.substr(0, table.out.find('\n'));
  EXPECT_NE(first.find(absl::StrCat(": PASS — ", report.coverage().judged(), " of ",
                                    report.coverage().total(), " probes judged; ")),
            std::string::npos)
      << first;
  EXPECT_NE(first.find("not applicable here (no GPU, no RDMA NIC"), std::string::npos) << first;
  CommandResult junit = Nodeprobe({"run", "--stage", "single-node", "--format", "junit"});
  EXPECT_NE(junit.out.find(absl::StrCat("<property name=\"nodeprobe.judged\" value=\"",
                                        report.coverage().judged(), "\"/>")),
            std::string::npos)
      << junit.out;
}

TEST(CliTest, TopologyXmlGivesMatrixRailsAndFindings) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe", "locality",
                               "--topology-xml",
                               testing::FixturePath("hwloc/g4dnmetal.xml"),
                               "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  v1::StageReport report = ParseReport(r.out);
  const v1::ProbeResult* loc = ResultOf(report, "locality");
  ASSERT_NE(loc, nullptr);
  EXPECT_EQ(loc->verdict(), v1::WARN);
  EXPECT_EQ(loc->topology().gpus_size(), 8);
  EXPECT_EQ(loc->topology().matrix_size(), 8);
  EXPECT_EQ(loc->topology().rails_size(), 8);
  CommandResult table = Nodeprobe({"run", "--stage", "single-node", "--probe",
                                   "locality", "--topology-xml",
                                   testing::FixturePath("hwloc/cts1-pascal.xml")});
  EXPECT_TRUE(absl::StrContains(table.out, "GPU0")) << table.out;
  EXPECT_TRUE(absl::StrContains(table.out, "PIX"));
  EXPECT_TRUE(absl::StrContains(table.out, "Legend"));
}

TEST(CliTest, PcieAndGpudirectReadACapturedSysfsTree) {
  auto host = testing::NodeExporterHost();
  ASSERT_TRUE(host.ok()) << host.status();
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe", "pcie", "--probe",
                               "gpudirect", "--sysfs-root", (*host)->sys_root, "--format",
                               "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  v1::StageReport report = ParseReport(r.out);
  const v1::ProbeResult* pcie = ResultOf(report, "pcie");
  ASSERT_NE(pcie, nullptr);
  ASSERT_EQ(pcie->findings_size(), 1);
  EXPECT_EQ(pcie->findings(0).code(), "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_EQ(pcie->findings(0).device(), "0000:00:02.1");
  // The capture has RDMA NICs but no NVIDIA GPU.
  EXPECT_EQ(ResultOf(report, "gpudirect")->verdict(), v1::SKIP);
}

TEST(CliTest, MissingTopologyXmlExitsTwo) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--topology-xml",
                               "/no/such.xml"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
}

TEST(CliTest, JsonUsesProtoFieldNamesAndEnumNames) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--format",
                               "json", "--probe", "inventory", "--node-name",
                               "gpu01"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* field :
       {"\"stage\": \"SINGLE_NODE\"", "\"node\": \"gpu01\"", "\"verdict\": \"PASS\"",
        "\"results\"", "\"findings\"", "\"measurements\"", "\"evidence\"",
        "\"started\"", "\"finished\"", "\"components\"", "\"present\""}) {
    EXPECT_TRUE(absl::StrContains(r.out, field)) << field;
  }
}

TEST(CliTest, TableNamesEveryProbeAndVerdict) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--node-name", "n1"});
  EXPECT_TRUE(absl::StrContains(r.out, "nodeprobe single-node on n1"));
  EXPECT_TRUE(absl::StrContains(r.out, "inventory"));
  EXPECT_TRUE(absl::StrContains(r.out, "rdma-devices"));
  EXPECT_TRUE(absl::StrContains(r.out, "nccl"));
}

TEST(CliTest, CapturedTreeWithDownPortExitsOneWithFinding) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string port = (*host)->sys_root + "/class/infiniband/mlx4_0/ports/1/";
  testing::RemoveTree((*host)->sys_root + "/class/infiniband/scif0");
  WriteFile(port + "state", "1: DOWN\n");
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe",
                               "rdma-devices", "--sysfs-root", (*host)->sys_root});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(r.out, "RDMA_PORT_DOWN [mlx4_0:1]"));
  EXPECT_TRUE(absl::StrContains(r.out, "fix: "));
}

TEST(CliTest, UnreadableTreeExitsThreeWhenNoFail) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  // The capture's dangling scif0 link cannot be read: ERROR, exit 3.
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe",
                               "rdma-devices", "--sysfs-root", (*host)->sys_root});
  EXPECT_EQ(r.exit_code, 3) << r.out;
}

TEST(CliTest, ProfileExceptionTurnsFailIntoWarnAndExitZero) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  testing::RemoveTree((*host)->sys_root + "/class/infiniband/scif0");
  const std::string profile = (*host)->dir.path() + "/profile.yaml";
  WriteFile(profile,
            "rdma:\n  expected_rate_gbps: 100\nexceptions:\n"
            "  - code: RDMA_RATE_BELOW_EXPECTED\n    device: mlx4_0\n"
            "    reason: FDR island until Q3\n");
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe",
                               "rdma-devices", "--sysfs-root", (*host)->sys_root,
                               "--profile", profile, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  v1::StageReport report = ParseReport(r.out);
  ASSERT_EQ(report.results(0).findings_size(), 1);
  EXPECT_EQ(report.results(0).findings(0).severity(), v1::WARN);
  EXPECT_TRUE(absl::StrContains(report.results(0).findings(0).exception_reason(),
                                "FDR island until Q3"));
}

TEST(CliTest, UnknownStageExitsTwoListingValidStages) {
  CommandResult r = Nodeprobe({"run", "--stage", "three-node"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "single-node"));
  EXPECT_TRUE(r.out.empty());
}

TEST(CliTest, UnknownProbeExitsTwoListingValidProbes) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--probe", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "unknown probe 'nope'"));
  const ProbeRegistry registry = BuiltinProbes();
  for (const Probe* p : registry.List()) {
    EXPECT_TRUE(absl::StrContains(r.err, std::string(p->name()))) << p->name() << ": " << r.err;
  }
}

TEST(CliTest, BadProfileExitsTwoNamingFileLineAndKey) {
  testing::TempDir dir;
  const std::string profile = dir.path() + "/p.yaml";
  WriteFile(profile, "rdma:\n  expected_rate_gbps: 400\n  colour: blue\n");
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--profile", profile});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, profile + ":3: unknown key 'rdma.colour'"))
      << r.err;
}

TEST(CliTest, MissingProfileAndBadSysfsRootExitTwo) {
  EXPECT_EQ(Nodeprobe({"run", "--stage", "single-node", "--profile", "/nope.yaml"})
                .exit_code,
            2);
  CommandResult r =
      Nodeprobe({"run", "--stage", "single-node", "--sysfs-root", "/no/such/dir"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
}

TEST(CliTest, UnknownFlagExitsTwo) {
  CommandResult r = Nodeprobe({"run", "--stage", "single-node", "--colour"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(LineCount(r.err), 1) << r.err;
}

TEST(CliTest, HelpAndVersionExitZero) {
  CommandResult help = Nodeprobe({"run", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(help.out, "--sysfs-root"));
  EXPECT_TRUE(absl::StrContains(help.out, "Exit codes"));
  CommandResult version = Nodeprobe({"version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(absl::StartsWith(version.out, "nodeprobe "));
}

// `profile --explain` prints every key of the table; `--check` validates a
// file with the parser's FILE:LINE errors and the usage exit code.
TEST(CliTest, ProfileExplainsEveryKeyAndChecksAFile) {
  CommandResult r = Nodeprobe({"profile", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const ProfileKey& k : ProfileKeys()) {
    EXPECT_TRUE(absl::StrContains(r.out, absl::StrCat(k.key, "\t"))) << k.key;
  }
  CommandResult json = Nodeprobe({"profile", "--explain", "--format", "json"});
  EXPECT_EQ(json.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(json.out, "\"key\": \"transfer.noise_sigmas\"")) << json.out;
  testing::TempDir dir;
  testing::WriteFile(dir.path() + "/good.yaml", "rdma:\n  expected_rate_gbps: 400\n");
  testing::WriteFile(dir.path() + "/bad.yaml",
                     "rdma:\n  expected_rate_gbps: 400\nmtu:\n  expectd: 9000\n");
  EXPECT_EQ(Nodeprobe({"profile", "--check", dir.path() + "/good.yaml"}).exit_code, 0);
  CommandResult bad = Nodeprobe({"profile", "--check", dir.path() + "/bad.yaml"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(bad.err, "bad.yaml:4")) << bad.err;
  EXPECT_TRUE(absl::StrContains(bad.err, "expected")) << bad.err;
  EXPECT_EQ(Nodeprobe({"profile"}).exit_code, 2);
  // An exception already past is valid YAML but said, not silent.
  testing::WriteFile(dir.path() + "/past.yaml",
                     "exceptions:\n  - code: RDMA_PORT_DOWN\n    reason: r\n    expires: "
                     "1970-01-01\n");
  CommandResult past = Nodeprobe({"profile", "--check", dir.path() + "/past.yaml"});
  EXPECT_EQ(past.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(past.err, "is already past")) << past.err;
  EXPECT_TRUE(absl::StrContains(past.out, "1 warning(s) above")) << past.out;
}

TEST(CliTest, ProbesListsNameStagesAndPurpose) {
  CommandResult r = Nodeprobe({"probes"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(absl::StrContains(r.out, "inventory\tsingle-node\t"));
  EXPECT_TRUE(absl::StrContains(r.out, "rdma-devices\tsingle-node\t"));
  CommandResult json = Nodeprobe({"probes", "--format", "json"});
  v1::ProbeCatalog catalog;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &catalog).ok());
  // Every registered probe, in the registry's order.
  const ProbeRegistry registry = BuiltinProbes();
  ASSERT_EQ(static_cast<size_t>(catalog.probes_size()), registry.List().size());
  for (int i = 0; i < catalog.probes_size(); ++i) {
    EXPECT_EQ(catalog.probes(i).name(), registry.List()[i]->name());
  }
}

TEST(CliTest, RdmaTransferWithoutDeviceIsErrorNotCrash) {
  if (access("/sys/class/infiniband", F_OK) == 0) {
    GTEST_SKIP() << "this machine has RDMA devices";
  }
  CommandResult r = Nodeprobe({"transfer", "run", "--peer", "127.0.0.1:1",
                               "--transport", "rdma", "--format", "json"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  v1::ProbeResult result;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(r.out, &result).ok()) << r.out;
  EXPECT_EQ(result.verdict(), v1::ERROR);
  EXPECT_EQ(result.findings(0).code(), "TRANSFER_NO_RDMA_DEVICE");
  EXPECT_TRUE(absl::StrContains(result.findings(0).message(), "no RDMA device"));
}

TEST(CliTest, TransferBadInputExitsTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"transfer", "run", "--peer", "host:notaport"},
           {"transfer", "run", "--peer", "127.0.0.1", "--size", "big"},
           {"transfer", "run", "--peer", "127.0.0.1", "--op", "write_bw"},
           {"transfer", "run", "--peer", "127.0.0.1", "--transport", "carrier-pigeon"},
           {"transfer", "run"}}) {
    CommandResult r = Nodeprobe(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(LineCount(r.err), 1) << r.err;
  }
}

TEST(CliTest, TransferToNobodyIsConnectFailed) {
  CommandResult r = Nodeprobe({"transfer", "run", "--peer", "127.0.0.1:1", "--format", "json"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(absl::StrContains(r.out, "TRANSFER_CONNECT_FAILED")) << r.out;
}

TEST(CliTest, NoSubcommandExitsTwo) {
  EXPECT_EQ(Nodeprobe({}).exit_code, 2);
}

TEST(CliTest, NcclLogJudgesARealLogAndExitsLikeRun) {
  const std::string sockets = testing::FixturePath("nccl/socket_2node-8gpu_vllm_nccl2.21.5.log");
  CommandResult warn = Nodeprobe({"nccl-log", sockets});
  EXPECT_EQ(warn.exit_code, 0) << warn.err;
  EXPECT_TRUE(absl::StrContains(warn.out, "WARN NCCL_FELL_BACK_TO_SOCKETS")) << warn.out;
  EXPECT_TRUE(absl::StrContains(warn.out, "NET/Socket/0 (eth0) no GDR: 16 connection(s)"))
      << warn.out;
  CommandResult fail = Nodeprobe({"nccl-log", sockets, "--expect-rdma", "--format", "json"});
  EXPECT_EQ(fail.exit_code, 1) << fail.err;
  v1::ProbeResult result;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(fail.out, &result).ok()) << fail.out;
  EXPECT_EQ(result.verdict(), v1::FAIL);
  EXPECT_TRUE(result.nccl_log().ib_no_device());
  EXPECT_EQ(result.evidence().at("nccl.version"), "2.21.5+cuda12.4");
}

TEST(CliTest, NcclLogWithoutNcclOutputIsAnErrorAndBadPathsAreUsage) {
  CommandResult empty = Nodeprobe({"nccl-log", testing::FixturePath("hwloc/cts1-pascal.xml")});
  EXPECT_EQ(empty.exit_code, 3) << empty.out;
  CommandResult tests = Nodeprobe(
      {"nccl-log", testing::FixturePath("nccl/nccl-tests_1node-8xh100_v2.17.8.log")});
  EXPECT_EQ(tests.exit_code, 0) << tests.out;
  EXPECT_TRUE(absl::StrContains(tests.out, "nccl-tests all_reduce: 8 ranks")) << tests.out;
  EXPECT_TRUE(absl::StrContains(empty.out, "NCCL_LOG_EMPTY")) << empty.out;
  CommandResult stdin_empty = Nodeprobe({"nccl-log", "-"});  // stdin is /dev/null
  EXPECT_EQ(stdin_empty.exit_code, 3);
  CommandResult missing = Nodeprobe({"nccl-log", "/nonexistent/nccl.log"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_EQ(LineCount(missing.err), 1) << missing.err;
  EXPECT_TRUE(absl::StrContains(missing.err, "/nonexistent/nccl.log")) << missing.err;
  CommandResult dir = Nodeprobe({"nccl-log", "/tmp"});
  EXPECT_EQ(dir.exit_code, 2);
  CommandResult topo = Nodeprobe(
      {"nccl-log", testing::FixturePath("nccl/ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log"),
       "--topology-xml", "/nonexistent.xml"});
  EXPECT_EQ(topo.exit_code, 2);
  EXPECT_EQ(LineCount(topo.err), 1) << topo.err;
  CommandResult with_topo = Nodeprobe(
      {"nccl-log", testing::FixturePath("nccl/ib-gdrdma_2node-8gpu_vllm_nccl2.21.5.log"),
       "--topology-xml", testing::FixturePath("hwloc/cts1-pascal.xml")});
  EXPECT_EQ(with_topo.exit_code, 0) << with_topo.out << with_topo.err;
}

}  // namespace
}  // namespace nodeprobe

namespace nodeprobe {
namespace {

TEST(CliNamesTest, NamesAreCheckedWhereTheyEnterAndMarkdownExists) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"run", "--stage", "single-node", "--node-name", "gpu\nrun x: PASS"},
           {"run", "--stage", "single-node", "--node-name", "gpu\x1b[2J"},
           {"run", "--stage", "two-node", "--nodes", "gpu-a,gpu|b"},
           {"report", "--run", "../../etc"},
           {"agent", "--coordinator", "127.0.0.1:1", "--insecure", "--node-name", "a,b"}}) {
    testing::CommandResult r = testing::RunBinary(NODEPROBE_BINARY, args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(testing::LineCount(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "not a valid name")) << r.err;
    EXPECT_FALSE(absl::StrContains(r.err, "\x1b")) << r.err;
  }
  testing::CommandResult md =
      testing::RunBinary(NODEPROBE_BINARY, {"run", "--stage", "single-node", "--format", "md"});
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_TRUE(absl::StrContains(md.out, "| node | probe | verdict | findings |")) << md.out;
  EXPECT_TRUE(absl::StrContains(md.out, "- judged: ")) << md.out;
}

}  // namespace
}  // namespace nodeprobe
