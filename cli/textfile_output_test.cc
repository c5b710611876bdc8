#include "cli/textfile_output.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "gtest/gtest.h"
#include "probes/framework/result_util.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::cli {
namespace {

v1::StageReport Report() {
  v1::StageReport r;
  r.set_stage(v1::SINGLE_NODE);
  r.set_verdict(v1::WARN);
  r.mutable_finished()->set_seconds(1764660000);
  v1::ProbeResult* p = r.add_results();
  p->set_probe("rdma-devices");
  p->set_verdict(v1::WARN);
  AddFinding(p, "RDMA_ERROR_COUNTERS_NONZERO", v1::WARN, "mlx4_0:1", "m");
  AddFinding(p, "RDMA_ERROR_COUNTERS_NONZERO", v1::WARN, "mlx4_0:2", "m");
  AddMeasurement(p, "rdma_port_rate", 40, "Gb/s", {{"device", "mlx4_0"}, {"port", "1"},
                                                   {"odd key", "a\"b"}});
  v1::ProbeResult* inv = r.add_results();
  inv->set_probe("inventory");
  inv->set_verdict(v1::PASS);
  v1::Component* kernel = inv->mutable_inventory()->add_components();
  kernel->set_name("kernel");
  kernel->set_present(true);
  kernel->set_version("6.1.0-28-amd64");
  v1::Component* fw = inv->mutable_inventory()->add_components();
  fw->set_name("hca_firmware");
  fw->set_device("mlx5_0");
  fw->set_present(true);
  fw->set_version("28.39.1002");
  v1::Component* nccl = inv->mutable_inventory()->add_components();
  nccl->set_name("nccl");
  nccl->set_present(false);
  return r;
}

TEST(RenderPrometheusTest, WritesVerdictsFindingCountsAndMeasurements) {
  std::string text = RenderPrometheus(Report());
  EXPECT_NE(text.find("nodeprobe_stage_verdict{stage=\"single-node\",verdict=\"WARN\"} 1\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("nodeprobe_probe_verdict{probe=\"rdma-devices\",verdict=\"WARN\"} 1\n"),
            std::string::npos);
  EXPECT_NE(text.find("nodeprobe_findings{code=\"RDMA_ERROR_COUNTERS_NONZERO\","
                      "probe=\"rdma-devices\",severity=\"WARN\"} 2\n"),
            std::string::npos) << text;
  // Label names are sanitized, values escaped (labels in name order, as
  // prometheus-cpp writes them).
  EXPECT_NE(text.find("nodeprobe_measurement{device=\"mlx4_0\",name=\"rdma_port_rate\","
                      "odd_key=\"a\\\"b\",port=\"1\",probe=\"rdma-devices\",unit=\"Gb/s\"} 40\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("nodeprobe_last_run_timestamp_seconds{stage=\"single-node\"} 1764660000"),
            std::string::npos);
  // The version matrix: installed components only.
  EXPECT_NE(text.find("nodeprobe_component_info{component=\"kernel\",device=\"\","
                      "version=\"6.1.0-28-amd64\"} 1\n"),
            std::string::npos) << text;
  EXPECT_NE(text.find("nodeprobe_component_info{component=\"hca_firmware\",device=\"mlx5_0\","
                      "version=\"28.39.1002\"} 1\n"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("component=\"nccl\""), std::string::npos) << text;
}

TEST(WriteTextfileTest, WritesAtomicallyAndNamesAnUnwritableDirectory) {
  testing::TempDir dir;
  ASSERT_TRUE(WriteTextfile(dir.path(), Report()).ok());
  std::ifstream in(dir.path() + "/nodeprobe.prom");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("# HELP nodeprobe_stage_verdict", 0), 0u);
  absl::Status bad = WriteTextfile("/proc/no-such-dir", Report());
  EXPECT_EQ(bad.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.message().find("/proc/no-such-dir"), std::string::npos);
}

// Prometheus' own linter accepts the file node_exporter will serve.
TEST(WriteTextfileTest, PromtoolAcceptsIt) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  }
  testing::TempDir dir;
  ASSERT_TRUE(WriteTextfile(dir.path(), Report()).ok());
  const std::string cmd = "promtool check metrics < " + dir.path() + "/nodeprobe.prom > " +
                          dir.path() + "/lint.txt 2>&1";
  const int rc = std::system(cmd.c_str());
  std::ifstream lint(dir.path() + "/lint.txt");
  const std::string said((std::istreambuf_iterator<char>(lint)), {});
  EXPECT_EQ(rc, 0) << said;
  EXPECT_TRUE(said.empty()) << said;  // no lint warnings either
}

}  // namespace
}  // namespace nodeprobe::cli
