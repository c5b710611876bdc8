// deploy/prometheus (alert rules and their promtool unit tests) and
// deploy/grafana (the fleet dashboard): checked by Prometheus' own tool,
// so a rule or a panel that Prometheus would reject fails here first.
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "re2/re2.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe {
namespace {

const std::string kDeploy = NODEPROBE_DEPLOY_DIR;

bool HavePromtool() { return std::system("command -v promtool > /dev/null 2>&1") == 0; }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Runs `cmd`, returns its exit status; its output in *said.
int RunCommand(const std::string& cmd, const std::string& dir, std::string* said) {
  const std::string out = dir + "/out.txt";
  const int rc = std::system(absl::StrCat(cmd, " > ", out, " 2>&1").c_str());
  *said = Slurp(out);
  return rc;
}

TEST(PrometheusRulesTest, PromtoolAcceptsTheRulesAndTheirUnitTestsPass) {
  if (!HavePromtool()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  testing::TempDir dir;
  std::string said;
  EXPECT_EQ(RunCommand("promtool check rules " + kDeploy + "/prometheus/nodeprobe-rules.yml",
                dir.path(), &said), 0) << said;
  EXPECT_NE(said.find("SUCCESS: 6 rules found"), std::string::npos) << said;
  // promtool resolves rule_files relative to the test file.
  EXPECT_EQ(RunCommand("promtool test rules " + kDeploy + "/prometheus/nodeprobe-rules.test.yml",
                dir.path(), &said), 0) << said;
  EXPECT_NE(said.find("SUCCESS"), std::string::npos) << said;
}

// Every panel query of the dashboard, as Prometheus parses it: written as
// recording rules, which promtool checks without a server.
std::vector<std::string> DashboardQueries(const google::protobuf::Struct& dashboard) {
  std::vector<std::string> exprs;
  for (const auto& panel : dashboard.fields().at("panels").list_value().values()) {
    const auto& fields = panel.struct_value().fields();
    if (!fields.contains("targets")) continue;
    for (const auto& target : fields.at("targets").list_value().values()) {
      const auto& t = target.struct_value().fields();
      if (t.contains("expr")) exprs.push_back(t.at("expr").string_value());
    }
  }
  return exprs;
}

TEST(GrafanaDashboardTest, EveryPanelQueryParsesAndReadsOurMetrics) {
  google::protobuf::Struct dashboard;
  const std::string json = Slurp(kDeploy + "/grafana/nodeprobe-fleet.json");
  ASSERT_FALSE(json.empty());
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &dashboard).ok());
  EXPECT_EQ(dashboard.fields().at("uid").string_value(), "nodeprobe-fleet");
  const std::vector<std::string> exprs = DashboardQueries(dashboard);
  ASSERT_GE(exprs.size(), 8u);
  // Only metrics nodeprobe exports (textfile, agent, coordinator).
  const std::set<std::string> ours = {
      "nodeprobe_stage_verdict",          "nodeprobe_last_run_timestamp_seconds",
      "nodeprobe_findings",               "nodeprobe_component_info",
      "nodeprobe_agent_connected",        "nodeprobe_transfer_bandwidth_bytes_per_second",
      "nodeprobe_coordinator_stage_runs_total"};
  for (const std::string& e : exprs) {
    re2::StringPiece in(e);
    std::string name;
    while (RE2::FindAndConsume(&in, R"((nodeprobe_[a-z_]+))", &name)) {
      EXPECT_TRUE(ours.count(name)) << name << " in " << e;
    }
  }
  if (!HavePromtool()) GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  testing::TempDir dir;
  std::string rules = "groups:\n  - name: dashboard\n    rules:\n";
  for (size_t i = 0; i < exprs.size(); ++i) {
    // A YAML single-quoted scalar: only ' needs doubling.
    std::string q;
    for (char c : exprs[i]) q += c == '\'' ? std::string("''") : std::string(1, c);
    absl::StrAppend(&rules, "      - record: dashboard:panel_", i, "\n        expr: '", q, "'\n");
  }
  std::ofstream(dir.path() + "/dashboard.yml") << rules;
  std::string said;
  EXPECT_EQ(RunCommand("promtool check rules " + dir.path() + "/dashboard.yml", dir.path(), &said), 0)
      << said << rules;
}

}  // namespace
}  // namespace nodeprobe
