// Coordinator, agents and CLI as real processes in network namespaces:
// host c runs the coordinator and routes between a (10.83.1.0/24) and b
// (10.83.2.0/24), where the agents run. Covers the two-node stage, mutual
// TLS, lost agents, a coordinator restart, a hung probe run, and bad input.
#include <google/protobuf/util/json_util.h>
#include <limits.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "coordinator/stages/congestion/congestion_stage.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "nodeprobe/v1/trend.pb.h"
#include "platform/socket.h"
#include "tests/lab/certs.h"
#include "tests/lab/fleet_fixture.h"
#include "tests/lab/lab.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::lab {
namespace {

// What `host`'s /metrics on `port` serves, linted by promtool on the way
// (`*lint`: promtool's exit code; -1 when the scrape did not run).
std::string ScrapeMetrics(Lab* lab, const std::string& host, int port, const std::string& log,
                          int* lint) {
  *lint = -1;
  auto pid = lab->Spawn(host,
                        {"bash", "-c",
                         absl::StrCat("exec 3<>/dev/tcp/127.0.0.1/", port,
                                      " && printf 'GET /metrics HTTP/1.0\r\nHost: ", host,
                                      "\r\n\r\n' >&3 && sed '1,/^\r$/d' <&3 | tee /dev/stderr | "
                                      "promtool check metrics")},
                        log);
  if (!pid.ok()) return "";
  auto rc = lab->Wait(*pid, absl::Seconds(20));
  if (rc.ok()) *lint = *rc;
  return lab->ReadLog(log);
}

TEST_F(ControlPlaneLabTest, TwoNodeStageRunsTransfersBothWaysAndIsStored) {
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  int rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                   "--transfer-seconds", "1"},
                  false, &out);
  ASSERT_EQ(rc, 0) << out;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.state(), "done");
  EXPECT_EQ(run.node_reports_size(), 2);
  // Per direction: the path MTU, then a transfer.
  ASSERT_EQ(run.pairs_size(), 4) << run.DebugString();
  std::vector<std::string> order;
  for (const auto& p : run.pairs()) {
    order.push_back(absl::StrCat(p.from_node(), p.result().probe()));
    if (p.result().has_mtu()) {
      EXPECT_EQ(p.result().mtu().paths(0).path_mtu(), 1500u);
      EXPECT_EQ(p.result().verdict(), v1::PASS);
    } else {
      EXPECT_GT(p.result().transfer().results(0).bw_avg_gbps(), 0.05);
    }
  }
  EXPECT_EQ(order, (std::vector<std::string>{"gpu-amtu", "gpu-atransfer", "gpu-bmtu",
                                             "gpu-btransfer"}));
  std::string report;
  ASSERT_EQ(Client({"report", "--run", run.run_id(), "--format", "json"}, false, &report), 0);
  EXPECT_EQ(ParseRun(report).run_id(), run.run_id());
  std::string md;
  ASSERT_EQ(Client({"report", "--run", run.run_id(), "--format", "md"}, false, &md), 0);
  EXPECT_NE(md.find("| gpu-a | gpu-b |"), std::string::npos) << md;
  // The acceptance record of a campaign, and the nodes' last verdicts.
  std::string html;
  ASSERT_EQ(Client({"report", "--runs", absl::StrCat(run.run_id(), ",", run.run_id()), "--format",
                    "html"},
                   false, &html),
            0);
  EXPECT_NE(html.find("Acceptance record: 2 runs"), std::string::npos) << html.substr(0, 500);
  std::string junit;
  ASSERT_EQ(Client({"report", "--run", run.run_id(), "--format", "junit"}, false, &junit), 0);
  EXPECT_NE(junit.find("<testcase classname=\"nodeprobe.gpu-a\" name=\"pcie\""),
            std::string::npos)
      << junit;
  std::string fleet;
  EXPECT_EQ(Client({"fleet"}, false, &fleet), 0) << fleet;
  EXPECT_NE(fleet.find(run.run_id() + " (two-node)"), std::string::npos) << fleet;
  std::string runs;
  ASSERT_EQ(Client({"runs"}, false, &runs), 0);
  EXPECT_NE(runs.find(run.run_id()), std::string::npos);
}

TEST_F(ControlPlaneLabTest, MutualTlsChecksEveryParty) {
  ASSERT_TRUE(MakeCertificates(dir_.path(), {"coordinator", "gpu-a", "evil", "cli"},
                               {"10.83.1.1", "10.83.2.1"})
                  .ok());
  port_ = StartCoordinator(true);
  StartAgent("a", "gpu-a", true);
  ASSERT_TRUE(WaitForAgent("gpu-a", true));
  // An agent whose certificate names another node is refused.
  StartAgent("b", "gpu-b", true, "evil");
  ASSERT_TRUE(lab_->WaitForLog("agent-gpu-b-b.log", "does not name node", absl::Seconds(10)).ok());
  // Only the CN and DNS SANs name a node: e-mail, URI and IP SANs that
  // spell the node's name do not.
  ASSERT_TRUE(MakeCertificate(dir_.path(), "sans", "someone-else",
                              "email:gpu-x,URI:gpu-x,IP:10.83.1.1,IP:10.83.2.1")
                  .ok());
  StartAgent("a", "gpu-x", true, "sans", {"--metrics-listen", "", "--health-listen", ""});
  ASSERT_TRUE(lab_->WaitForLog("agent-gpu-x-a.log", "does not name node", absl::Seconds(10)).ok())
      << lab_->ReadLog("agent-gpu-x-a.log");
  std::string out;
  EXPECT_EQ(Client({"run", "--stage", "single-node", "--nodes", "gpu-b"}, true, &out), 2) << out;
  // A client without a certificate, and a plaintext client, are refused.
  EXPECT_NE(Client({"runs", "--tls-ca", dir_.path() + "/ca.pem"}, true, &out,
                   absl::Seconds(30), ""),
            0);
  EXPECT_EQ(Client({"runs"}, false, &out), 3) << out;
  EXPECT_NE(out.find("unreachable or refused"), std::string::npos) << out;
  // ... and told the cause: the coordinator speaks TLS.
  EXPECT_NE(out.find("give --tls-cert, --tls-key and --tls-ca instead of --insecure"),
            std::string::npos)
      << out;
  // An agent's certificate (signed by the same CA) registers, and nothing
  // more: no stage, no runs, no nodes.
  EXPECT_NE(Client({"runs"}, true, &out, absl::Seconds(30), "gpu-a"), 0);
  EXPECT_NE(out.find("gpu-a is not an operator of this coordinator"), std::string::npos) << out;
  EXPECT_NE(Client({"run", "--stage", "single-node", "--nodes", "gpu-a"}, true, &out,
                   absl::Seconds(30), "gpu-a"),
            0);
  EXPECT_NE(out.find("is not an operator"), std::string::npos) << out;
  EXPECT_NE(Client({"fleet"}, true, &out, absl::Seconds(30), "gpu-a"), 0);
  EXPECT_NE(out.find("is not an operator"), std::string::npos) << out;
  // The operator's certificate reads them.
  EXPECT_EQ(Client({"fleet"}, true, &out), 0) << out;
  EXPECT_NE(out.find("gpu-a"), std::string::npos) << out;
}

TEST_F(ControlPlaneLabTest, AgentKilledMidStageIsAgentLostAndOthersAreKept) {
  port_ = StartCoordinator(false);
  StartAgent("a", "gpu-a", false);
  pid_t b = StartAgent("b", "gpu-b", false);
  ASSERT_TRUE(WaitForAgent("gpu-a", false));
  ASSERT_TRUE(WaitForAgent("gpu-b", false));
  auto stage = SpawnTwoNodeStage(4, "stage.log");
  ASSERT_TRUE(stage.ok());
  ASSERT_TRUE(lab_->WaitForLog("stage.log", "transfer gpu-a -> gpu-b", absl::Seconds(20)).ok());
  usleep(1000000);
  kill(b, SIGKILL);
  const absl::Time killed = absl::Now();
  auto rc = lab_->Wait(*stage, absl::Seconds(40));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_LT(absl::Now() - killed, absl::Seconds(30));
  EXPECT_EQ(*rc, 3) << lab_->ReadLog("stage.log");
  v1::StageRun run = ParseRun(lab_->ReadLog("stage.log"));
  EXPECT_EQ(run.verdict(), v1::ERROR);
  EXPECT_TRUE(HasFinding(run, "AGENT_LOST", "gpu-b")) << run.DebugString();
  EXPECT_EQ(run.node_reports_size(), 2);  // both single-node reports kept
}

TEST_F(ControlPlaneLabTest, CoordinatorRestartKeepsRunsAndAgentsComeBack) {
  ASSERT_TRUE(StartPlaintextFleet());
  auto stage = SpawnTwoNodeStage(5, "stage.log");
  ASSERT_TRUE(lab_->WaitForLog("stage.log", "transfer gpu-a -> gpu-b", absl::Seconds(20)).ok());
  kill(coordinator_pid_, SIGKILL);
  (void)lab_->Wait(coordinator_pid_, absl::Seconds(5));
  (void)lab_->Wait(*stage, absl::Seconds(20));
  StartCoordinator(false, port_);
  // The agents reconnect on their own (backoff with jitter).
  ASSERT_TRUE(WaitForAgent("gpu-a", false));
  ASSERT_TRUE(WaitForAgent("gpu-b", false));
  std::string out;
  ASSERT_EQ(Client({"runs", "--format", "json"}, false, &out), 0);
  v1::ListRunsResponse runs;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(out.substr(out.find('{')), &runs).ok());
  bool interrupted = false;
  for (const auto& r : runs.runs()) {
    if (r.stage() == v1::TWO_NODE) {
      interrupted = true;
      EXPECT_EQ(r.state(), "error");
      EXPECT_EQ(r.verdict(), v1::ERROR);
      EXPECT_EQ(r.findings(0).code(), "COORDINATOR_RESTARTED");
    }
  }
  EXPECT_TRUE(interrupted) << out;
}

TEST_F(ControlPlaneLabTest, HungProbeRunIsKilledAtItsDeadlineAndTheAgentStaysUp) {
  const std::string hang = dir_.path() + "/hang.sh";
  testing::WriteFile(hang, "#!/bin/sh\nsleep 600\n");
  chmod(hang.c_str(), 0755);
  port_ = StartCoordinator(false);
  StartAgent("a", "gpu-a", false, "", {"--task-worker", hang});
  std::string out;
  int rc = -1;
  for (int i = 0; i < 50 && rc != 3; ++i) {
    rc = Client({"run", "--stage", "single-node", "--nodes", "gpu-a", "--timeout", "2",
                 "--format", "json"},
                false, &out);
    if (rc == 2) usleep(200000);  // agent not registered yet
  }
  ASSERT_EQ(rc, 3) << out;
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.node_reports_size(), 1);
  EXPECT_EQ(run.node_reports(0).results(0).findings(0).code(), "TASK_TIMEOUT");
  // The agent survived: a second stage gets the same answer, not AGENT_LOST.
  EXPECT_EQ(Client({"run", "--stage", "single-node", "--nodes", "gpu-a", "--timeout", "2",
                    "--format", "json"},
                   false, &out),
            3);
  EXPECT_EQ(ParseRun(out).findings_size(), 0);
}

TEST_F(ControlPlaneLabTest, BadInputGetsClearErrorsAndTheCoordinatorKeepsServing) {
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,nobody"}, false, &out), 2);
  EXPECT_NE(out.find("no agent connected as 'nobody'"), std::string::npos) << out;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-a"}, false, &out), 2);
  EXPECT_NE(out.find("twice"), std::string::npos) << out;
  // Garbage on the coordinator's port.
  {
    std::vector<std::string> junk = {"sh", "-c",
                                     absl::StrCat("head -c 4096 /dev/urandom > /dev/tcp/10.83.1.1/",
                                                  port_, " 2>/dev/null; true")};
    auto pid = lab_->Spawn("c", {"bash", "-c", junk[2]}, "junk.log");
    ASSERT_TRUE(pid.ok());
    (void)lab_->Wait(*pid, absl::Seconds(10));
  }
  // A stage on a busy node is refused, not interleaved.
  auto first = SpawnTwoNodeStage(3, "first.log");
  ASSERT_TRUE(lab_->WaitForLog("first.log", "single-node probes", absl::Seconds(20)).ok());
  EXPECT_EQ(Client({"run", "--stage", "single-node", "--nodes", "gpu-b"}, false, &out), 3);
  EXPECT_NE(out.find("running another stage"), std::string::npos) << out;
  auto rc = lab_->Wait(*first, absl::Seconds(60));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 0) << lab_->ReadLog("first.log");
}

// The pids whose parent is `parent` (from /proc/*/stat).
std::vector<pid_t> ChildrenOf(pid_t parent) {
  std::vector<pid_t> out;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    size_t close = line.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(line.substr(close + 2));
    std::string state;
    pid_t ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent && state != "Z") out.push_back(std::stoi(name));
  }
  return out;
}

bool Alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  return std::getline(stat, line) && line.find(") Z") == std::string::npos;
}

// Ctrl-C on a multi-node run without a terminal (a script, CI) cancels it
// at the coordinator: the CLI exits 130 within seconds saying so, the
// stored run is "cancelled" with RUN_CANCELLED and no node blamed, and the
// nodes are free for the next run at once (their tasks were cancelled).
TEST_F(ControlPlaneLabTest, CtrlCWithoutATerminalCancelsTheRunAtTheCoordinator) {
  ASSERT_TRUE(StartPlaintextFleet());
  auto cli = lab_->Spawn("c",
                         {NODEPROBE_BINARY, "run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b",
                          "--transfer-seconds", "30", "--timeout", "300", "--coordinator",
                          absl::StrCat("10.83.1.1:", port_), "--insecure"},
                         "interrupted.log");
  ASSERT_TRUE(cli.ok());
  ASSERT_TRUE(lab_->WaitForLog("interrupted.log", "transfer gpu-a -> gpu-b", absl::Seconds(60)).ok())
      << lab_->ReadLog("interrupted.log");
  const absl::Time interrupted = absl::Now();
  kill(*cli, SIGINT);
  absl::StatusOr<int> rc = lab_->Wait(*cli, absl::Seconds(30));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_EQ(*rc, 130);
  const std::string said = lab_->ReadLog("interrupted.log");
  EXPECT_NE(said.find("cancelling run"), std::string::npos) << said;
  EXPECT_NE(said.find("state \"cancelled\""), std::string::npos) << said;
  const size_t at = said.find("report --run ");
  ASSERT_NE(at, std::string::npos) << said;
  const std::string run_id = said.substr(at + 13, said.find('`', at) - at - 13);
  // The coordinator ends the run within seconds, not after the 30 s transfer.
  v1::StageRun run;
  for (int i = 0; i < 50; ++i) {
    std::string out;
    if (Client({"report", "--run", run_id, "--format", "json"}, false, &out) == 0) {
      run = ParseRun(out);
      if (run.state() != "running") break;
    }
    usleep(200000);
  }
  EXPECT_LT(absl::Now() - interrupted, absl::Seconds(20));
  EXPECT_EQ(run.state(), "cancelled") << run.DebugString();
  EXPECT_EQ(run.verdict(), v1::ERROR);
  EXPECT_TRUE(HasFinding(run, "RUN_CANCELLED", "coordinator")) << run.DebugString();
  for (const auto& f : run.findings()) {
    EXPECT_NE(f.code(), "AGENT_LOST") << f.DebugString();
    EXPECT_NE(f.code(), "TASK_TIMEOUT") << f.DebugString();
  }
  std::string out;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--transfer-seconds",
                    "1", "--format", "json"},
                   false, &out),
            0)
      << out;
}

// Five two-node runs build the class's baseline (baseline.use); a sixth
// with gpu-a's sender shaped 20% lower is REGRESSED_FROM_BASELINE with
// the numbers, while its figure still passes the profile's TCP bar.
TEST_F(ControlPlaneLabTest, ASixthRunTwentyPercentLowerIsRegressedFromTheBaseline) {
  ASSERT_TRUE(StartPlaintextFleet());
  const std::string profile = dir_.path() + "/baseline.yaml";
  testing::WriteFile(profile, "baseline:\n  use: true\ntransfer:\n  tcp_stream_min_gbps: 0.3\n");
  std::string out;
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                      "--transfer-seconds", "1", "--profile", profile},
                     false, &out),
              0)
        << out;
  }
  std::string shown;
  ASSERT_EQ(Client({"baseline", "show"}, false, &shown), 0) << shown;
  std::cerr << shown;
  // Both directions of the five runs, one class: ten samples.
  EXPECT_NE(shown.find("STREAM_BW gbps rail tcp"), std::string::npos) << shown;
  EXPECT_NE(shown.find(", n 10, "), std::string::npos) << shown;
  std::string shown_json;
  ASSERT_EQ(Client({"baseline", "show", "--format", "json"}, false, &shown_json), 0);
  v1::ClassBaselines classes;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(shown_json, &classes).ok()) << shown_json;
  EXPECT_GE(classes.accepted_runs(), 5u) << shown_json;  // and the fixture's own runs
  ASSERT_EQ(classes.classes_size(), 1) << shown_json;
  bool ten = false;
  for (const v1::ClassBaselines::Figure& f : classes.classes(0).figures()) {
    ten |= f.figure() == "STREAM_BW gbps rail tcp" && f.runs() == 10 && f.enough_runs();
  }
  EXPECT_TRUE(ten) << shown_json;
  // The node's trend: its five runs, oldest first, beside the class's ten.
  std::string trend_json;
  ASSERT_EQ(Client({"report", "--trend", "gpu-a", "--format", "json"}, false, &trend_json), 0)
      << trend_json;
  v1::NodeTrend trend;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(trend_json, &trend).ok()) << trend_json;
  EXPECT_EQ(trend.runs(), 5u) << trend_json;
  bool stream = false;
  for (const v1::FigureTrend& f : trend.figures()) {
    if (f.figure() != "STREAM_BW gbps rail tcp") continue;
    stream = true;
    EXPECT_EQ(f.points_size(), 5) << f.DebugString();
    EXPECT_EQ(f.baseline_runs(), 10u) << f.DebugString();
    for (int i = 1; i < f.points_size(); ++i) {
      EXPECT_LE(f.points(i - 1).seconds(), f.points(i).seconds());
    }
  }
  EXPECT_TRUE(stream) << trend_json;
  std::string trend_html;
  ASSERT_EQ(Client({"report", "--trend", "gpu-a", "--format", "html"}, false, &trend_html), 0);
  EXPECT_NE(trend_html.find("<svg"), std::string::npos);
  EXPECT_NE(trend_html.find("class median"), std::string::npos);
  ASSERT_TRUE(lab_->Shape("a", "ac", 800).ok());  // the fixture's senders run at 1000
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                    "--transfer-seconds", "1", "--profile", profile},
                   false, &out),
            1)
      << out;
  const v1::StageRun run = ParseRun(out);
  const v1::Finding* regressed = nullptr;
  for (const v1::Finding& f : run.findings()) {
    std::cerr << v1::Verdict_Name(f.severity()) << " " << f.code() << " " << f.device() << ": "
              << f.message() << "\n";
    if (f.code() == "REGRESSED_FROM_BASELINE" &&
        absl::StartsWith(f.device(), "gpu-a STREAM_BW gbps rail")) {
      regressed = &f;
    }
  }
  ASSERT_NE(regressed, nullptr) << out;
  EXPECT_EQ(regressed->severity(), v1::FAIL);
  EXPECT_NE(regressed->message().find("(n 10"), std::string::npos) << regressed->message();
  EXPECT_NE(regressed->message().find("this node's previous value"), std::string::npos);
  for (const v1::PairResult& p : run.pairs()) {  // the profile's bar still passes
    for (const v1::Finding& f : p.result().findings()) {
      EXPECT_NE(f.code(), "TRANSFER_BELOW_EXPECTED") << f.message();
    }
  }
  // The coordinator's /metrics: the figure over its class's median, for
  // an alert on drift (promtool accepts the exposition).
  int lint = -1;
  const std::string metrics = ScrapeMetrics(lab_.get(), "c", 18520, "ratio.log", &lint);
  EXPECT_EQ(lint, 0) << metrics;
  const std::string series =
      "nodeprobe_baseline_ratio{figure=\"STREAM_BW gbps rail tcp\",node=\"gpu-a\"} ";
  const size_t at = metrics.find(series);
  ASSERT_NE(at, std::string::npos) << metrics;
  const double ratio = std::stod(metrics.substr(at + series.size()));
  EXPECT_GT(ratio, 0.7) << metrics;
  EXPECT_LT(ratio, 0.9) << metrics;
}

TEST_F(ControlPlaneLabTest, TwoNodeStageIsJudgedByItsProfileAndTheRunKeepsIt) {
  // b's side of the fabric at 1400: a -> b meets a smaller path MTU, and
  // the two ends' MTUs differ; the profile accepts both with a reason.
  ASSERT_TRUE(lab_->Exec("c", "ip link set cb mtu 1400").ok());
  ASSERT_TRUE(lab_->Exec("b", "ip link set bc mtu 1400").ok());
  ASSERT_TRUE(StartPlaintextFleet());
  const std::string profile = dir_.path() + "/fleet.yaml";
  testing::WriteFile(profile,
                     "exceptions:\n"
                     "  - code: MTU_PATH_SMALLER_THAN_IFACE\n"
                     "    reason: \"lab router at 1400, OPS-42\"\n"
                     "  - code: MTU_PEERS_DIFFER\n"
                     "    reason: \"lab router at 1400, OPS-42\"\n");
  std::string out;
  int rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                   "--transfer-seconds", "1", "--profile", profile},
                  false, &out);
  ASSERT_EQ(rc, 0) << out;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.profile().source(), profile);
  int accepted = 0;
  for (const auto& p : run.pairs()) {
    for (const auto& f : p.result().findings()) {
      if (f.code() == "MTU_PATH_SMALLER_THAN_IFACE") {
        EXPECT_EQ(f.severity(), v1::WARN);
        EXPECT_NE(f.exception_reason().find("OPS-42"), std::string::npos) << f.DebugString();
        ++accepted;
      }
    }
  }
  EXPECT_GE(accepted, 1) << out;
  // The stored run says which profile judged it and why the finding passed.
  std::string report;
  ASSERT_EQ(Client({"report", "--run", run.run_id()}, false, &report), 0);
  EXPECT_NE(report.find("judged by profile: " + profile), std::string::npos) << report;
  EXPECT_NE(report.find("accepted: lab router at 1400, OPS-42"), std::string::npos) << report;
  // Without the profile the same fabric fails.
  rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
               "--transfer-seconds", "1"},
              false, &out);
  EXPECT_EQ(rc, 1) << out;
}

// Judged transfers: a direction shaped to a tenth of the other is named,
// a profile bar above what a rail moves fails it, and equal rails pass.
TEST_F(ControlPlaneLabTest, TransfersAreJudgedAgainstTheReverseThePeersAndTheProfile) {
  ASSERT_TRUE(lab_->Shape("a", "ac", 50).ok());   // a -> b at 50 Mbit/s
  ASSERT_TRUE(lab_->Shape("b", "bc", 500).ok());  // b -> a at 500 Mbit/s
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  int rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                   "--transfer-seconds", "2"},
                  false, &out);
  EXPECT_EQ(rc, 1) << out;
  v1::StageRun run = ParseRun(out);
  bool named = false;
  for (const auto& p : run.pairs()) {
    if (!p.result().has_transfer()) continue;
    const auto& t = p.result().transfer();
    EXPECT_FALSE(t.expected_source().empty());
    for (const auto& f : p.result().findings()) {
      if (f.code() == "TRANSFER_ASYMMETRIC") {
        EXPECT_EQ(p.from_node(), "gpu-a") << f.message();  // the shaped side
        EXPECT_EQ(f.severity(), v1::FAIL);
        named = true;
      }
    }
  }
  EXPECT_TRUE(named) << out;

  // Both ways at 500 Mbit/s: equal, and a profile bar above them fails both.
  ASSERT_TRUE(lab_->Shape("a", "ac", 500).ok());
  rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
               "--transfer-seconds", "2"},
              false, &out);
  EXPECT_EQ(rc, 0) << out;
  const std::string profile = dir_.path() + "/bar.yaml";
  testing::WriteFile(profile, "transfer:\n  tcp_stream_min_gbps: 0.9\n");
  rc = Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
               "--transfer-seconds", "1", "--profile", profile},
              false, &out);
  EXPECT_EQ(rc, 1) << out;
  run = ParseRun(out);
  int below = 0, retested = 0;
  for (const auto& p : run.pairs()) {
    if (!p.result().has_transfer()) continue;
    EXPECT_EQ(p.result().transfer().expected_source(), "profile");
    EXPECT_DOUBLE_EQ(p.result().transfer().expected(), 0.9);
    if (p.retest()) {
      ++retested;
      continue;
    }
    // Nothing is FAIL from one sample: each direction was measured again,
    // and the retest reproduced the shortfall.
    for (const auto& f : p.result().findings()) {
      if (f.code() != "TRANSFER_BELOW_EXPECTED") continue;
      ++below;
      EXPECT_EQ(f.severity(), v1::FAIL) << f.message();
      EXPECT_NE(f.message().find("reproduced by the retest"), std::string::npos) << f.message();
    }
  }
  EXPECT_EQ(below, 2) << out;
  EXPECT_EQ(retested, 2) << out;
}

TEST_F(ControlPlaneLabTest, RailsThatNeitherNodeHasAreRefused) {
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--rails",
                    "mlx5_7"},
                   false, &out),
            2);
  EXPECT_NE(out.find("--rails names 'mlx5_7', which neither node has (rails: tcp, or all)"),
            std::string::npos)
      << out;
}

TEST_F(ControlPlaneLabTest, AnAgentKilledWhileServingATransferLeavesNothingBehind) {
  ASSERT_TRUE(StartPlaintextFleet());
  // gpu-b is the agent started second; find its pid from the fleet.
  auto stage = SpawnTwoNodeStage(20, "stage.log");
  ASSERT_TRUE(stage.ok());
  ASSERT_TRUE(lab_->WaitForLog("stage.log", "transfer gpu-a -> gpu-b", absl::Seconds(30)).ok())
      << lab_->ReadLog("stage.log");
  // The serving worker is a child of gpu-b's agent.
  std::vector<pid_t> workers;
  for (int i = 0; i < 50 && workers.empty(); ++i) {
    workers = ChildrenOf(agent_b_);
    usleep(100000);
  }
  ASSERT_FALSE(workers.empty()) << "no worker under agent " << agent_b_;
  ASSERT_TRUE(lab_->Exec("b", "ss -Hltn | grep -v 127.0.0.1:18518 | grep -q LISTEN").ok())
      << "the transfer server listens while the stage runs";
  ASSERT_GT(agent_b_, 0);  // never kill(-1, ...)
  kill(agent_b_, SIGKILL);
  // A worker's death signal fires when the agent's forking thread dies, which
  // can be before the agent's last thread has gone and its sockets closed:
  // wait for the agent too before looking at what listens.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = !Alive(agent_b_);
    for (pid_t w : workers) gone &= !Alive(w);
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "a worker outlived its agent";
  // Nothing listens in b any more (the agent's health endpoint died with it).
  // Within a short grace: the kernel closes an exiting process's sockets a
  // moment after /proc shows it gone.
  const std::string listening = "if ss -Hltnp | grep LISTEN; then exit 1; fi";
  absl::Status quiet = lab_->Exec("b", listening);
  for (int i = 0; i < 40 && !quiet.ok(); ++i) {
    usleep(50000);
    quiet = lab_->Exec("b", listening);
  }
  EXPECT_TRUE(quiet.ok()) << quiet;
  auto rc = lab_->Wait(*stage, absl::Seconds(60));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 3) << lab_->ReadLog("stage.log");
}

TEST_F(ControlPlaneLabTest, TheAgentsHealthEndpointAnswersThroughTheCommand) {
  port_ = StartCoordinator(false);
  const pid_t agent = StartAgent("a", "gpu-a", false, "", {"--health-listen", "127.0.0.1:18600"});
  ASSERT_TRUE(WaitForAgent("gpu-a", false));
  // `nodeprobe agent` handed itself to the slim binary beside it (the same
  // PID, so a supervisor keeps it), whose tasks, such as the stage above,
  // ran in the full one.
  char exe[PATH_MAX] = {};
  ASSERT_GT(readlink(absl::StrCat("/proc/", agent, "/exe").c_str(), exe, sizeof(exe) - 1), 0);
  EXPECT_TRUE(absl::EndsWith(exe, "/nodeprobe-agent")) << exe;
  auto pid = lab_->Spawn("a", {NODEPROBE_BINARY, "status", "--agent", "127.0.0.1:18600",
                               "--format", "json"},
                         "status.log");
  ASSERT_TRUE(pid.ok());
  auto rc = lab_->Wait(*pid, absl::Seconds(10));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 0) << lab_->ReadLog("status.log");
  v1::AgentStatus st;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lab_->ReadLog("status.log"), &st).ok())
      << lab_->ReadLog("status.log");
  EXPECT_EQ(st.node_name(), "gpu-a");
  EXPECT_TRUE(st.connected());
  // The default address has no agent in this namespace: exit 3, one line.
  pid = lab_->Spawn("a", {NODEPROBE_BINARY, "status"}, "status2.log");
  ASSERT_TRUE(pid.ok());
  rc = lab_->Wait(*pid, absl::Seconds(10));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 3);
  EXPECT_NE(lab_->ReadLog("status2.log").find("no agent answers on 127.0.0.1:18518"),
            std::string::npos);
}


// A real Prometheus (Debian's) in c scrapes both agents' and the
// coordinator's /metrics; its query API has their series, and promtool
// accepts what they serve.
TEST_F(ControlPlaneLabTest, TheAgentsMetricsAreScrapedByARealPrometheus) {
  if (std::system("command -v prometheus > /dev/null && command -v promtool > /dev/null") != 0) {
    GTEST_SKIP() << "prometheus/promtool are not installed (Debian package prometheus)";
  }
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  ASSERT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--transfer-seconds",
                    "1"},
                   false, &out),
            0)
      << out;
  // What the agent serves, linted by promtool.
  int lint = -1;
  const std::string served = ScrapeMetrics(lab_.get(), "a", 18519, "lint.log", &lint);
  EXPECT_EQ(lint, 0) << served;
  EXPECT_NE(served.find("nodeprobe_agent_connected 1"), std::string::npos) << served;
  EXPECT_NE(served.find("nodeprobe_agent_tasks_total{kind=\"run_transfer\"} 1"), std::string::npos)
      << served;
  EXPECT_NE(served.find("nodeprobe_probe_verdict{probe=\"inventory\",verdict=\"PASS\"} 1"),
            std::string::npos)
      << served;
  EXPECT_NE(served.find("nodeprobe_transfer_bandwidth_bytes_per_second{op=\"STREAM_BW\""),
            std::string::npos)
      << served;

  const std::string cfg = dir_.path() + "/prometheus.yml";
  testing::WriteFile(cfg,
                     "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: nodeprobe\n"
                     "    static_configs:\n      - targets: ['10.83.1.2:18519', '10.83.2.2:18519', "
                     "'127.0.0.1:18520']\n");
  auto prom = lab_->Spawn("c", {"prometheus", "--config.file=" + cfg,
                                "--storage.tsdb.path=" + dir_.path() + "/tsdb",
                                "--web.listen-address=127.0.0.1:19090"},
                          "prometheus.log");
  ASSERT_TRUE(prom.ok());
  std::string answer;
  for (int i = 0; i < 60; ++i) {
    usleep(500000);
    auto q = lab_->Spawn("c", {"bash", "-c",
                               "exec 3<>/dev/tcp/127.0.0.1/19090 && printf 'GET "
                               "/api/v1/query?query=nodeprobe_agent_connected HTTP/1.0\r\n\r\n' "
                               ">&3 && cat <&3"},
                         absl::StrCat("query", i, ".log"));
    if (!q.ok() || !lab_->Wait(*q, absl::Seconds(10)).ok()) continue;
    answer = lab_->ReadLog(absl::StrCat("query", i, ".log"));
    if (answer.find("10.83.1.2:18519") != std::string::npos &&
        answer.find("10.83.2.2:18519") != std::string::npos) {
      break;
    }
  }
  EXPECT_NE(answer.find("\"instance\":\"10.83.1.2:18519\""), std::string::npos)
      << answer << lab_->ReadLog("prometheus.log");
  EXPECT_NE(answer.find("\"instance\":\"10.83.2.2:18519\""), std::string::npos) << answer;
  EXPECT_NE(answer.find(",\"1\"]"), std::string::npos) << answer;  // connected = 1
  // The coordinator's own: both agents connected (refreshed every 10 s),
  // the stages it ran.
  for (int i = 0; i < 60; ++i) {
    auto q = lab_->Spawn("c", {"bash", "-c",
                               "exec 3<>/dev/tcp/127.0.0.1/19090 && printf 'GET "
                               "/api/v1/query?query=nodeprobe_coordinator_agents HTTP/1.0\r\n\r\n' "
                               ">&3 && cat <&3"},
                         absl::StrCat("cquery", i, ".log"));
    if (q.ok() && lab_->Wait(*q, absl::Seconds(10)).ok()) {
      answer = lab_->ReadLog(absl::StrCat("cquery", i, ".log"));
      if (answer.find(",\"2\"]") != std::string::npos) break;
    }
    usleep(500000);
  }
  EXPECT_NE(answer.find("\"state\":\"connected\""), std::string::npos) << answer;
  EXPECT_NE(answer.find(",\"2\"]"), std::string::npos) << answer;
  const std::string coordinator_served = ScrapeMetrics(lab_.get(), "c", 18520, "clint.log", &lint);
  EXPECT_EQ(lint, 0) << coordinator_served;
  EXPECT_NE(coordinator_served.find("nodeprobe_coordinator_stage_runs_total{stage=\"two-node\","
                                    "verdict=\"PASS\"} 1"),
            std::string::npos)
      << coordinator_served;
  // Tasks timed from sending to result, by kind: the nodes' probes, the
  // transfer of each direction and the path-MTU probes.
  for (const char* kind : {"run_probes", "run_transfer", "run_path_mtu"}) {
    EXPECT_NE(coordinator_served.find(absl::StrCat(
                  "nodeprobe_coordinator_task_seconds_count{kind=\"", kind, "\"} ")),
              std::string::npos)
        << kind;
  }
  kill(*prom, SIGTERM);
  (void)lab_->Wait(*prom, absl::Seconds(10));
}

// NCCL across the nodes over the coordinator, on the fake CUDA runtime and
// NCCL (tests/fakes/fake_nccl.cc) with two GPUs per node: four ranks in
// four workers on two agents, the unique id relayed by the coordinator.
class CollectiveLabTest : public ControlPlaneLabTest {
 protected:
  void SetUp() override {
    ControlPlaneLabTest::SetUp();
    if (IsSkipped()) return;
    UseFakeGpus(FAKE_NCCL_LIBRARY, 2);
    profile_ = dir_.path() + "/nccl.yaml";
    nodeprobe::testing::WriteFile(profile_,
                       "nccl:\n  collectives: [all_reduce, alltoall, sendrecv]\n"
                       "  sizes: [4096, 65536]\n  iters: 3\n  warmup_iters: 1\n"
                       "  op_timeout_s: 3\n  env: { NCCL_IB_QPS_PER_CONNECTION: \"2\" }\n");
    wait_profile_ = profile_;
  }
  void TearDown() override { ClearFakeGpus(); }
  int TwoNode(std::string* out) {
    return Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                   "--transfer-seconds", "1", "--profile", profile_, "--timeout", "60"},
                  false, out, absl::Seconds(90));
  }
  static const v1::Finding* FindingOf(const v1::ProbeResult& r, const std::string& code) {
    for (const v1::Finding& f : r.findings()) {
      if (f.code() == code) return &f;
    }
    return nullptr;
  }
  std::string profile_;
};

TEST_F(CollectiveLabTest, RanksSpanTheNodesInNodeTimesGpuOrder) {
  ASSERT_TRUE(StartPlaintextFleet());
  std::string out;
  EXPECT_EQ(TwoNode(&out), 0) << out;
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.collectives_size(), 1) << run.DebugString();
  const v1::ProbeResult& r = run.collectives(0);
  EXPECT_NE(r.verdict(), v1::ERROR) << r.DebugString();
  const v1::CollectiveReport& c = r.collective();
  ASSERT_EQ(c.ranks_size(), 4);
  const std::vector<std::pair<std::string, int>> want = {
      {"gpu-a", 0}, {"gpu-a", 1}, {"gpu-b", 0}, {"gpu-b", 1}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(c.ranks(i).node(), want[i].first);
    EXPECT_EQ(c.ranks(i).gpu(), want[i].second);
    EXPECT_EQ(c.ranks(i).state(), "done") << c.ranks(i).error();
  }
  EXPECT_EQ(c.rank_order(), "node order x local CUDA ordinal: gpu-a ranks 0-1; gpu-b ranks 2-3");
  ASSERT_EQ(c.rows_size(), 6);
  for (const v1::CollectiveRow& row : c.rows()) {
    EXPECT_EQ(row.wrong(), 0) << row.collective();  // real sums over four processes
    EXPECT_GT(row.busbw_gbps(), 0);
  }
  // The environment as evidence: the profile's; nothing derived, as the
  // lab's nodes have no RDMA rail to name.
  EXPECT_EQ(c.env().at("NCCL_IB_QPS_PER_CONNECTION"), "2");
  EXPECT_EQ(c.env().count("NCCL_IB_HCA"), 0u);
  // NCCL talked over sockets between the nodes; nothing better existed.
  const v1::Finding* sockets = FindingOf(r, "NCCL_FELL_BACK_TO_SOCKETS");
  ASSERT_NE(sockets, nullptr) << r.DebugString();
  EXPECT_EQ(sockets->severity(), v1::WARN);
  // The stored run shows it too.
  std::string md;
  ASSERT_EQ(Client({"report", "--run", run.run_id(), "--format", "md"}, false, &md), 0);
  EXPECT_NE(md.find("NCCL across the nodes: 4 ranks"), std::string::npos) << md;
  EXPECT_NE(md.find("all_reduce at 65536 B"), std::string::npos) << md;
}

TEST_F(CollectiveLabTest, AHungRankOnOneNodeIsNamedAndEveryNodeStops) {
  // Rank 3 exists only across the nodes: the single-node parts pass.
  setenv("FAKE_NCCL_FAIL_RANK", "3", 1);
  setenv("FAKE_NCCL_FAIL", "hang", 1);
  setenv("FAKE_NCCL_FAIL_AFTER", "2", 1);
  ASSERT_TRUE(StartPlaintextFleet());
  const absl::Time start = absl::Now();
  std::string out;
  EXPECT_EQ(TwoNode(&out), 3) << out;
  EXPECT_LT(absl::Now() - start, absl::Seconds(45));
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.collectives_size(), 1) << run.DebugString();
  const v1::ProbeResult& r = run.collectives(0);
  EXPECT_EQ(r.verdict(), v1::ERROR);
  const v1::Finding* f = FindingOf(r, "NCCL_TIMEOUT");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_NE(f->message().find("rank 3 on gpu-b (GPU 1): in all_reduce"), std::string::npos)
      << f->message();
}

TEST_F(CollectiveLabTest, AnAgentKilledMidCollectiveIsARankLost) {
  setenv("FAKE_NCCL_DELAY_US", "100000", 1);  // slow enough to kill b in the middle
  ASSERT_TRUE(StartPlaintextFleet());
  auto stage = lab_->Spawn("c",
                           {NODEPROBE_BINARY, "run", "--stage", "two-node", "--nodes",
                            "gpu-a,gpu-b", "--format", "json", "--transfer-seconds", "1",
                            "--timeout", "90", "--profile", profile_, "--coordinator",
                            absl::StrCat("10.83.1.1:", port_), "--insecure"},
                           "stage.log");
  ASSERT_TRUE(stage.ok());
  ASSERT_TRUE(lab_->WaitForLog("stage.log", "nccl: 4 ranks", absl::Seconds(60)).ok())
      << lab_->ReadLog("stage.log");
  usleep(1500000);
  kill(agent_b_, SIGKILL);
  const absl::Time killed = absl::Now();
  auto rc = lab_->Wait(*stage, absl::Seconds(60));
  ASSERT_TRUE(rc.ok()) << rc.status();
  EXPECT_LT(absl::Now() - killed, absl::Seconds(20));
  EXPECT_EQ(*rc, 3);
  v1::StageRun run = ParseRun(lab_->ReadLog("stage.log"));
  ASSERT_EQ(run.collectives_size(), 1) << run.DebugString();
  const v1::ProbeResult& r = run.collectives(0);
  const v1::Finding* f = FindingOf(r, "NCCL_TIMEOUT");
  ASSERT_NE(f, nullptr) << r.DebugString();
  EXPECT_NE(f->message().find("rank 2 on gpu-b"), std::string::npos) << f->message();
  EXPECT_EQ(r.collective().ranks(2).state(), "lost");
}



TEST_F(ClusterLabTest, TheShapedNodeIsBlamedAndItsRetestConfirmsIt) {
  ASSERT_TRUE(lab_->Shape("e", "ec", 100).ok());
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  const absl::Time start = absl::Now();
  EXPECT_EQ(Cluster({"--all"}, &out), 1) << out;
  const absl::Duration took = absl::Now() - start;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.stage(), v1::CLUSTER);
  EXPECT_EQ(run.pattern(), "all-pairs");
  EXPECT_EQ(run.rounds(), 3u);  // n - 1 for four nodes
  EXPECT_EQ(run.nodes_size(), 4);
  int transfers = 0, retests = 0;
  for (const v1::PairResult& p : run.pairs()) {
    if (!p.result().has_transfer()) continue;
    int asymmetric = 0;  // against the reverse of its own round only
    for (const v1::Finding& f : p.result().findings()) asymmetric += f.code() == "TRANSFER_ASYMMETRIC";
    EXPECT_LE(asymmetric, 1) << p.DebugString();
    if (p.retest()) {
      ++retests;
      continue;
    }
    ++transfers;
    EXPECT_GE(p.round(), 1u);
    EXPECT_LE(p.round(), 3u);
  }
  EXPECT_EQ(transfers, 12) << out;  // 6 pairs, both ways
  EXPECT_EQ(retests, 4) << out;  // gpu-e and a good node, and a control pair, both ways
  ASSERT_EQ(run.suspects_size(), 1) << out;
  const v1::Suspect& s = run.suspects(0);
  EXPECT_EQ(s.kind(), "node");
  EXPECT_EQ(s.node(), "gpu-e");
  EXPECT_EQ(s.low(), 3u);
  EXPECT_EQ(s.partners(), 3u);
  EXPECT_TRUE(s.retested());
  EXPECT_TRUE(s.confirmed());
  EXPECT_NE(s.known_good(), "gpu-e");
  EXPECT_FALSE(s.known_good().empty());
  bool finding = false;
  for (const v1::Finding& f : run.findings()) {
    if (f.code() != "SUSPECT_NODE") continue;
    finding = true;
    EXPECT_EQ(f.device(), "gpu-e");
    EXPECT_EQ(f.severity(), v1::FAIL);
    EXPECT_NE(f.message().find("3 of 3 partners"), std::string::npos) << f.message();
    EXPECT_NE(f.message().find("confirms it"), std::string::npos) << f.message();
  }
  EXPECT_TRUE(finding) << out;
  // Rounds ran their pairs at once: 6 pairs x 2 directions x >= 1 s each
  // one after the other would take over 12 s of transfers alone.
  std::cerr << "cluster stage on 4 nodes took " << absl::FormatDuration(took) << "\n";

  // The stored run has the blame too, and the table says it.
  std::string table;
  EXPECT_EQ(run.state(), "done");  // the run went as planned; the fabric failed
  ASSERT_EQ(Client({"report", "--run", run.run_id()}, false, &table), 0) << table;
  EXPECT_NE(table.find("node gpu-e: low with 3 of 3 partners; retest against"), std::string::npos)
      << table;
}

TEST_F(ClusterLabTest, HealthyLinksPassInEveryPattern) {
  ASSERT_TRUE(StartFourNodes());
  std::string out;
  EXPECT_EQ(Cluster({"--nodes", "gpu-a,gpu-b,gpu-d,gpu-e"}, &out), 0) << out;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.rounds(), 3u);
  EXPECT_EQ(run.suspects_size(), 0) << out;
  EXPECT_NE(run.verdict(), v1::FAIL);
  // The ring: each node with its neighbour, two rounds for four nodes;
  // with cluster.latency a latency test beside each bandwidth test (its
  // verdict is left alone: round trips on a busy 2-core machine are noisy).
  const std::string latency = dir_.path() + "/latency.yaml";
  testing::WriteFile(latency, "cluster:\n  latency: true\n");
  Cluster({"--all", "--pattern", "ring", "--profile", latency}, &out);
  run = ParseRun(out);
  EXPECT_EQ(run.pattern(), "ring");
  EXPECT_EQ(run.rounds(), 2u);
  int bandwidth = 0, latencies = 0;
  for (const v1::PairResult& p : run.pairs()) {
    if (!p.result().has_transfer() || p.retest()) continue;
    (p.result().transfer().op() == v1::RR_LAT ? latencies : bandwidth)++;
  }
  EXPECT_EQ(bandwidth, 8) << out;  // 4 ring edges, both ways
  EXPECT_EQ(latencies, 8) << out;
  // A node named twice is refused before anything starts.
  EXPECT_EQ(Cluster({"--nodes", "gpu-a,gpu-a"}, &out), 2) << out;
  EXPECT_NE(out.find("twice"), std::string::npos) << out;
}


TEST_F(ClusterLabTest, IncastIntoAShapedReceiverShowsItsRateFairnessAndLatency) {
  ASSERT_TRUE(lab_->Shape("c", "ca", 300).ok());  // into gpu-a at 300 Mbit/s
  ASSERT_TRUE(StartFourNodes());
  const std::string profile = dir_.path() + "/congestion.yaml";
  testing::WriteFile(profile, "transfer:\n  tcp_stream_min_gbps: 0.5\n");
  std::string out;
  EXPECT_EQ(Client({"run", "--stage", "congestion", "--all", "--format", "json",
                    "--transfer-seconds", "2", "--timeout", "120", "--profile", profile},
                   false, &out, absl::Seconds(150)),
            1)
      << out;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.stage(), v1::CONGESTION);
  int incasts = 0, all_to_all = 0;
  for (const v1::CongestionResult& c : run.congestion()) {
    bool below = false;
    for (const v1::Finding& f : c.findings()) below |= f.code() == "CONGESTION_AGGREGATE_BELOW_EXPECTED";
    std::vector<const v1::TransferResult*> rows;
    for (const v1::PairResult& p : c.flows()) {
      EXPECT_EQ(p.to_node(), c.receiver());
      rows.push_back(&p.result().transfer().results(0));
    }
    // The flows' rates over the window they all ran in (each flow's first
    // interval stamped by its receiver), not each over its own run.
    std::string basis;
    const std::vector<double> shared = coordinator::CommonWindowRates(rows, &basis);
    EXPECT_FALSE(shared.empty()) << basis;
    EXPECT_EQ(c.window_basis(), basis);
    EXPECT_NE(basis.find("every flow ran in"), std::string::npos) << basis;
    EXPECT_NEAR(c.fairness(), coordinator::JainIndex(shared), 1e-9);
    EXPECT_GT(c.fairness(), 0);
    EXPECT_LE(c.fairness(), 1.0 + 1e-9);
    EXPECT_DOUBLE_EQ(c.expected_gbps(), 0.5);
    if (c.pattern() == "all-to-all") {
      ++all_to_all;
      EXPECT_EQ(c.flows_size(), 3);
      continue;
    }
    ++incasts;
    ASSERT_EQ(c.flows_size(), 3) << c.DebugString();  // 3 -> 1
    EXPECT_GT(c.idle_latency().p99_us(), 0);
    EXPECT_GT(c.loaded_latency().p99_us(), 0);
    if (c.receiver() == "gpu-a") {
      // The receiver at its shaped rate (goodput of 300 Mbit/s ~ 0.29; tbf's
      // burst lets a short incast read up to ~10% over: 0.328 seen in CI).
      EXPECT_GT(c.aggregate_gbps(), 0.2) << c.DebugString();
      EXPECT_LT(c.aggregate_gbps(), 0.36) << c.DebugString();
      EXPECT_TRUE(below) << c.DebugString();
      EXPECT_EQ(c.verdict(), v1::FAIL);
    } else {
      EXPECT_FALSE(below) << c.DebugString();
      EXPECT_GT(c.aggregate_gbps(), 0.5);
    }
  }
  EXPECT_EQ(incasts, 4) << out;
  EXPECT_EQ(all_to_all, 4) << out;
  std::string table;
  ASSERT_EQ(Client({"report", "--run", run.run_id()}, false, &table), 0) << table;
  EXPECT_NE(table.find("incast 3 -> gpu-a [tcp]: 0."), std::string::npos) << table;
}


// Failure injection between gpu-a and gpu-b: gpu-a's link toward the
// router (its only one) goes down for 2 s in the middle of a transfer.
class FailureLabTest : public ControlPlaneLabTest {
 protected:
  void SetUp() override {
    ControlPlaneLabTest::SetUp();
    if (IsSkipped()) return;
    // The agents and flappers inherit it (Lab::Spawn).
    setenv("NODEPROBE_RUNTIME_DIR", dir_.path().c_str(), 1);
  }
  void TearDown() override {
    unsetenv("NODEPROBE_RUNTIME_DIR");
    if (HasFailure() && lab_) {  // what the agents said, before the lab goes
      for (const char* log : {"agent-gpu-a-a.log", "agent-gpu-b-b.log"}) {
        std::cerr << "--- " << log << "\n" << lab_->ReadLog(log) << "\n";
      }
    }
  }
  bool StartDisruptiveFleet(bool allow) {
    port_ = StartCoordinator(false);
    std::vector<std::string> extra;
    if (allow) extra.push_back("--allow-disruptive");
    agent_a_ = StartAgent("a", "gpu-a", false, "", extra);
    agent_b_ = StartAgent("b", "gpu-b", false, "", extra);
    profile_ = dir_.path() + "/failure.yaml";
    testing::WriteFile(profile_, "failure:\n  link_down_s: 2\n");
    return WaitForAgent("gpu-a", false) && WaitForAgent("gpu-b", false);
  }
  std::vector<std::string> Stage(bool allow) {
    std::vector<std::string> args = {"run", "--stage", "failure", "--nodes", "gpu-a,gpu-b",
                                     "--format", "json", "--timeout", "90", "--profile", profile_};
    if (allow) args.push_back("--allow-disruptive");
    return args;
  }
  bool LinkUp() { return lab_->Exec("a", "ip -o link show ac | grep -q ',UP'").ok(); }
  // Starts the failure stage in c (not waited for) and returns once gpu-a's
  // link is down.
  absl::StatusOr<pid_t> SpawnUntilTheLinkIsDown() {
    std::vector<std::string> argv = {NODEPROBE_BINARY};
    for (const std::string& a : Stage(true)) argv.push_back(a);
    argv.insert(argv.end(), {"--coordinator", absl::StrCat("10.83.1.1:", port_), "--insecure"});
    absl::StatusOr<pid_t> stage = lab_->Spawn("c", argv, "stage.log");
    if (!stage.ok()) return stage;
    for (int i = 0; i < 300; ++i) {
      if (!LinkUp()) return stage;
      usleep(50000);
    }
    return absl::DeadlineExceededError("the link never went down: " + lab_->ReadLog("stage.log"));
  }
  pid_t agent_a_ = -1;
  std::string profile_;
};

TEST_F(FailureLabTest, ItRefusesWithoutTheOperatorsAndTheAgentsYes) {
  ASSERT_TRUE(StartDisruptiveFleet(false));
  std::string out;
  EXPECT_EQ(Client(Stage(false), false, &out), 2) << out;
  EXPECT_NE(out.find("--allow-disruptive"), std::string::npos) << out;
  // The operator says yes, the agents (started without it) say no.
  EXPECT_EQ(Client(Stage(true), false, &out, absl::Seconds(120)), 3) << out;
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.failures_size(), 1) << out;
  bool refused = false;
  for (const v1::Finding& f : run.failures(0).findings()) refused |= f.code() == "FAILURE_REFUSED";
  EXPECT_TRUE(refused) << run.failures(0).DebugString();
  EXPECT_TRUE(LinkUp());
}

TEST_F(FailureLabTest, ALinkDownMidTransferIsDetectedRecordedAndRestored) {
  ASSERT_TRUE(StartDisruptiveFleet(true));
  std::string out;
  const int rc = Client(Stage(true), false, &out, absl::Seconds(120));
  EXPECT_TRUE(rc == 0 || rc == 1) << out;
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.failures_size(), 1) << out;
  const v1::FailureResult& f = run.failures(0);
  EXPECT_EQ(f.node(), "gpu-a");
  EXPECT_EQ(f.flap().verdict(), v1::PASS) << f.DebugString();
  const v1::LinkFlapReport& lf = f.flap().link_flap();
  EXPECT_EQ(lf.netdev(), "ac");
  EXPECT_TRUE(lf.restored());
  EXPECT_EQ(lf.restored_by(), "flapper");
  const double down_for = (lf.up_at().seconds() - lf.down_at().seconds()) +
                          (lf.up_at().nanos() - lf.down_at().nanos()) / 1e9;
  EXPECT_GT(down_for, 1.8) << f.DebugString();
  EXPECT_LT(down_for, 3.0) << f.DebugString();
  // From the ask to the link seen down: the agent starts a flapper process
  // (an ASan binary on a loaded 2-core CI takes over a second to start), and
  // gives up at 2 s with FAILURE_REFUSED, which findings_size() == 0 rules out.
  EXPECT_GT(f.detect_s(), 0) << f.DebugString();
  EXPECT_LT(f.detect_s(), down_for) << f.DebugString();
  EXPECT_FALSE(f.transfer_outcome().empty());
  EXPECT_GE(f.recover_s(), 0);
  EXPECT_LT(f.recover_s(), 5);  // routes put back: traffic at once
  EXPECT_EQ(f.findings_size(), 0) << f.DebugString();
  // The routes that went with the link came back with it.
  EXPECT_TRUE(lab_->Exec("a", "ip route show default | grep -q 10.83.1.1").ok());
  // The evidence says what was done, when and by whom.
  ASSERT_GE(f.actions_size(), 5) << f.DebugString();
  bool by_whom = false;
  for (const std::string& a : f.actions()) by_whom |= a.find("operator: unauthenticated") != std::string::npos;
  EXPECT_TRUE(by_whom) << f.DebugString();
  EXPECT_EQ(run.operator_identity(), "unauthenticated (plaintext coordinator)");
  EXPECT_TRUE(LinkUp());
}

TEST_F(FailureLabTest, AnAgentRestartedMidTransferIsDetectedAndComesBack) {
  ASSERT_TRUE(StartDisruptiveFleet(true));
  std::vector<std::string> args = Stage(true);
  args.insert(args.end(), {"--scenario", "agent-restart"});
  std::string out;
  const int rc = Client(args, false, &out, absl::Seconds(120));
  EXPECT_EQ(rc, 0) << out;
  v1::StageRun run = ParseRun(out);
  ASSERT_EQ(run.failures_size(), 1) << out;
  const v1::FailureResult& f = run.failures(0);
  std::cout << f.DebugString();  // the evidence, in the test's log
  EXPECT_EQ(f.scenario(), "agent-restart");
  EXPECT_EQ(f.node(), "gpu-b");
  EXPECT_EQ(f.findings_size(), 0) << f.DebugString();
  EXPECT_EQ(f.verdict(), v1::PASS);
  EXPECT_GT(f.detect_s(), 0);
  EXPECT_LT(f.detect_s(), 2.0) << f.DebugString();  // the stream goes with the process
  EXPECT_GT(f.recover_s(), 0);
  EXPECT_LT(f.recover_s(), 30.0) << f.DebugString();
  EXPECT_FALSE(f.transfer_outcome().empty());
  EXPECT_NE(f.transfer_outcome(), "hung");
  // Restarted in place: the same pid runs a fresh agent, connected again.
  EXPECT_EQ(kill(agent_b_, 0), 0);
  EXPECT_TRUE(WaitForAgent("gpu-b", false));
  bool said = false;
  for (const std::string& a : f.actions()) said |= a.find("registered again") != std::string::npos;
  EXPECT_TRUE(said) << f.DebugString();
}

TEST_F(FailureLabTest, TheLinkComesBackEvenWhenTheAgentIsKilledWhileItIsDown) {
  ASSERT_TRUE(StartDisruptiveFleet(true));
  absl::StatusOr<pid_t> stage = SpawnUntilTheLinkIsDown();
  ASSERT_TRUE(stage.ok()) << stage.status();
  ASSERT_EQ(kill(agent_a_, SIGKILL), 0);
  // The detached flapper puts it back after its 2 s.
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = LinkUp();
    if (!back) usleep(50000);
  }
  EXPECT_TRUE(back);
  usleep(300000);  // the flapper puts the routes back right after the link
  EXPECT_TRUE(lab_->Exec("a", "ip route show default | grep -q 10.83.1.1").ok());
  auto rc = lab_->Wait(*stage, absl::Seconds(120));
  ASSERT_TRUE(rc.ok());
  EXPECT_NE(*rc, 0) << lab_->ReadLog("stage.log");  // gpu-a was lost: not a pass
}

TEST_F(FailureLabTest, AFlapperKilledWithItsAgentIsUndoneWhenTheAgentStartsAgain) {
  ASSERT_TRUE(StartDisruptiveFleet(true));
  absl::StatusOr<pid_t> stage = SpawnUntilTheLinkIsDown();
  ASSERT_TRUE(stage.ok()) << stage.status();
  // What `systemctl stop` does to the unit's cgroup: the agent and its
  // flapper die together, the link still down.
  std::string marker;
  for (const auto& e : std::filesystem::directory_iterator(dir_.path() + "/flapping")) {
    marker = e.path();
  }
  ASSERT_FALSE(marker.empty());
  pid_t flapper = 0;
  std::ifstream(marker) >> flapper;
  ASSERT_GT(flapper, 0);
  ASSERT_EQ(kill(agent_a_, SIGKILL), 0);
  ASSERT_EQ(kill(flapper, SIGKILL), 0);
  usleep(2500000);  // past the flap's 2 s: nobody put it back
  EXPECT_FALSE(LinkUp());
  // The agent starts again and undoes it first.
  StartAgent("a", "gpu-a", false, "", {"--allow-disruptive"});
  bool back = false;
  for (int i = 0; i < 100 && !back; ++i) {
    back = LinkUp();
    if (!back) usleep(50000);
  }
  EXPECT_TRUE(back);
  EXPECT_FALSE(std::filesystem::exists(marker));
  (void)lab_->Wait(*stage, absl::Seconds(120));
}


TEST_F(ClusterLabTest, AnInterruptedRunResumesWithWhatItHadMeasured) {
  ASSERT_TRUE(StartFourNodes());
  auto stage = lab_->Spawn("c",
                           {NODEPROBE_BINARY, "run", "--stage", "cluster", "--all",
                            "--transfer-seconds", "1", "--timeout", "120", "--coordinator",
                            absl::StrCat("10.83.1.1:", port_), "--insecure"},
                           "first.log");
  ASSERT_TRUE(stage.ok());
  // Round 1 is stored (the first checkpoint is at once); kill it in round 3.
  ASSERT_TRUE(lab_->WaitForLog("first.log", "round 3/3", absl::Seconds(60)).ok())
      << lab_->ReadLog("first.log");
  kill(coordinator_pid_, SIGKILL);
  (void)lab_->Wait(coordinator_pid_, absl::Seconds(5));
  (void)lab_->Wait(*stage, absl::Seconds(20));
  const std::string first = lab_->ReadLog("first.log");
  const size_t at = first.find("[");
  ASSERT_NE(at, std::string::npos) << first;
  const std::string id = first.substr(at + 1, first.find("]", at) - at - 1);
  StartCoordinator(false, port_);
  for (const char* node : {"gpu-a", "gpu-b", "gpu-d", "gpu-e"}) ASSERT_TRUE(WaitForAgent(node, false));
  std::string out;
  // Not for other stages, nor with nodes of its own.
  EXPECT_EQ(Client({"run", "--stage", "two-node", "--resume", id}, false, &out), 2) << out;
  EXPECT_EQ(Client({"run", "--stage", "cluster", "--resume", id, "--all"}, false, &out), 2) << out;
  EXPECT_EQ(Cluster({"--resume", id}, &out), 0) << out;
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.run_id(), id);
  EXPECT_EQ(run.resumed(), 1u);
  EXPECT_EQ(run.state(), "done");
  EXPECT_EQ(run.rounds(), 3u);
  EXPECT_NE(out.find("(2 kept from before)"), std::string::npos) << out;
  int transfers = 0;
  for (const v1::PairResult& p : run.pairs()) transfers += p.result().has_transfer() && !p.retest();
  EXPECT_EQ(transfers, 12) << out;  // each pair once, both ways: nothing twice
  for (const v1::Finding& f : run.findings()) EXPECT_NE(f.code(), "COORDINATOR_RESTARTED");
  // A finished run does not resume.
  EXPECT_EQ(Cluster({"--resume", id}, &out), 2) << out;
  EXPECT_NE(out.find("nothing to resume"), std::string::npos) << out;
}

// The store on a full disk: a 4 MiB tmpfs the test fills mid-run. The run
// ends ERROR STORE_WRITE_FAILED "incomplete" at the CLI (and in the
// coordinator's log), and once there is room again it resumes without a
// coordinator restart. SIGTERM to the coordinator mid-stage blames no node.
TEST_F(ClusterLabTest, AFullDiskEndsARunIncompleteAndItResumesWithoutARestart) {
  const std::string small = dir_.path() + "/small";
  ASSERT_EQ(mkdir(small.c_str(), 0700), 0);
  if (mount("tmpfs", small.c_str(), "tmpfs", 0, "size=4m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << strerror(errno);
  }
  struct Unmount {
    std::string dir;
    ~Unmount() { umount2(dir.c_str(), MNT_DETACH); }
  } unmount{small};
  db_ = small + "/runs.db";
  ASSERT_TRUE(StartFourNodes());
  auto stage = lab_->Spawn("c",
                           {NODEPROBE_BINARY, "run", "--stage", "cluster", "--all", "--format",
                            "json", "--transfer-seconds", "1", "--timeout", "120",
                            "--coordinator", absl::StrCat("10.83.1.1:", port_), "--insecure"},
                           "full.log");
  ASSERT_TRUE(stage.ok());
  ASSERT_TRUE(lab_->WaitForLog("full.log", "round 2/3", absl::Seconds(60)).ok())
      << lab_->ReadLog("full.log");
  ASSERT_NE(system(absl::StrCat("dd if=/dev/zero of=", small, "/fill bs=64k 2>/dev/null").c_str()),
            -1);
  auto rc = lab_->Wait(*stage, absl::Seconds(120));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 3) << lab_->ReadLog("full.log");
  v1::StageRun run = ParseRun(lab_->ReadLog("full.log"));
  EXPECT_EQ(run.state(), "incomplete");
  EXPECT_EQ(run.verdict(), v1::ERROR);
  EXPECT_TRUE(HasFinding(run, "STORE_WRITE_FAILED", "coordinator")) << run.DebugString();
  EXPECT_NE(lab_->ReadLog(absl::StrCat("coordinator", coordinators_, ".log")).find("could not be stored"),
            std::string::npos);
  // Room again: it resumes on the same coordinator.
  ASSERT_EQ(unlink((small + "/fill").c_str()), 0);
  std::string out;
  EXPECT_EQ(Cluster({"--resume", run.run_id()}, &out), 0) << out;
  v1::StageRun resumed = ParseRun(out);
  EXPECT_EQ(resumed.state(), "done");
  EXPECT_EQ(resumed.resumed(), 1u);

  // SIGTERM to the coordinator mid-stage: COORDINATOR_LOST, no node blamed.
  auto second = lab_->Spawn("c",
                            {NODEPROBE_BINARY, "run", "--stage", "cluster", "--all", "--format",
                             "json", "--transfer-seconds", "1", "--timeout", "120",
                             "--coordinator", absl::StrCat("10.83.1.1:", port_), "--insecure"},
                            "stopped.log");
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(lab_->WaitForLog("stopped.log", "round 2/3", absl::Seconds(60)).ok());
  kill(coordinator_pid_, SIGTERM);
  rc = lab_->Wait(*second, absl::Seconds(60));
  ASSERT_TRUE(rc.ok());
  EXPECT_EQ(*rc, 3);
  const std::string stopped = lab_->ReadLog("stopped.log");
  EXPECT_NE(stopped.find("COORDINATOR_LOST"), std::string::npos) << stopped;
  EXPECT_EQ(stopped.find("AGENT_LOST"), std::string::npos) << stopped;
}

}  // namespace
}  // namespace nodeprobe::lab
