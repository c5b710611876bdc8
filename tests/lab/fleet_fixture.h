// File: fleet_fixture.h
// The fixtures of the tests that run a fleet in the namespace lab: a
// coordinator in host c routing between a (10.83.1.0/24) and b
// (10.83.2.0/24) where the agents run (ControlPlaneLabTest), and the four-
// agent cluster (ClusterLabTest: a, b, d, e around c). Both start real
// processes through the lab and talk to them through the CLI.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/lab/lab.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::lab {

class ControlPlaneLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::Status available = Lab::Available();
    if (!available.ok()) GTEST_SKIP() << "network-namespace lab: " << available.message();
    lab_ = std::make_unique<Lab>();
    for (const char* h : {"a", "b", "c"}) ASSERT_TRUE(lab_->AddHost(h).ok());
    ASSERT_TRUE(lab_->Link("c", "10.83.1.1/24", "a", "10.83.1.2/24").ok());
    ASSERT_TRUE(lab_->Link("c", "10.83.2.1/24", "b", "10.83.2.2/24").ok());
    ASSERT_TRUE(lab_->EnableForwarding("c").ok());
    ASSERT_TRUE(lab_->Exec("a", "ip route add default via 10.83.1.1").ok());
    ASSERT_TRUE(lab_->Exec("b", "ip route add default via 10.83.2.1").ok());
    // Transfers are judged against each other: both senders at 1 Gbit/s, a
    // rate this 2-core machine reaches both ways however busy it is, so a
    // healthy run is equal both ways (unshaped veth speed follows the CPU).
    if (sender_mbit_ > 0) {
      ASSERT_TRUE(lab_->Shape("a", "ac", sender_mbit_).ok());
      ASSERT_TRUE(lab_->Shape("b", "bc", sender_mbit_).ok());
    }
    db_ = dir_.path() + "/runs.db";
  }

  // Starts the coordinator in c on `port` (0: any); returns the port.
  int StartCoordinator(bool tls, int port = 0) {
    std::vector<std::string> argv = {NODEPROBE_BINARY, "coordinator", "--listen",
                                     absl::StrCat("0.0.0.0:", port), "--db", db_};
    AppendTls(&argv, tls, "coordinator");
    if (tls) {
      argv.push_back("--operator");
      argv.push_back("cli");
    }
    auto pid = lab_->Spawn("c", argv, absl::StrCat("coordinator", ++coordinators_, ".log"));
    EXPECT_TRUE(pid.ok());
    coordinator_pid_ = *pid;
    auto line = lab_->WaitForLog(absl::StrCat("coordinator", coordinators_, ".log"), "listening",
                                 absl::Seconds(10));
    EXPECT_TRUE(line.ok()) << line.status();
    if (!line.ok()) return 0;
    size_t at = line->find("port ") + 5;
    return std::stoi(line->substr(at));
  }

  void AppendTls(std::vector<std::string>* argv, bool tls, const std::string& who) {
    if (!tls) {
      argv->push_back("--insecure");
      return;
    }
    const std::string d = dir_.path();
    for (const auto& [flag, file] :
         std::vector<std::pair<std::string, std::string>>{{"--tls-cert", who + ".pem"},
                                                          {"--tls-key", who + ".key"},
                                                          {"--tls-ca", "ca.pem"}}) {
      argv->push_back(flag);
      argv->push_back(absl::StrCat(d, "/", file));
    }
  }

  pid_t StartAgent(const std::string& host, const std::string& node, bool tls,
                   const std::string& cert_name = "", std::vector<std::string> extra = {}) {
    const std::map<std::string, std::string> hubs = {
        {"a", "10.83.1.1"}, {"b", "10.83.2.1"}, {"d", "10.83.3.1"}, {"e", "10.83.4.1"}};
    const std::string hub = hubs.at(host);
    std::vector<std::string> argv = {NODEPROBE_BINARY, "agent", "--coordinator",
                                     absl::StrCat(hub, ":", port_), "--node-name", node};
    AppendTls(&argv, tls, cert_name.empty() ? node : cert_name);
    argv.insert(argv.end(), extra.begin(), extra.end());
    auto pid = lab_->Spawn(host, argv, absl::StrCat("agent-", node, "-", host, ".log"));
    EXPECT_TRUE(pid.ok());
    return *pid;
  }

  // Runs a nodeprobe client command in c; returns exit code and stdout.
  int Client(std::vector<std::string> args, bool tls, std::string* out,
             absl::Duration timeout = absl::Seconds(60), const std::string& cert = "cli") {
    std::vector<std::string> argv = {NODEPROBE_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--coordinator");
    argv.push_back(absl::StrCat("10.83.1.1:", port_));
    if (!cert.empty()) AppendTls(&argv, tls, cert);
    const std::string log = absl::StrCat("client", ++clients_, ".log");
    auto pid = lab_->Spawn("c", argv, log);
    EXPECT_TRUE(pid.ok());
    auto rc = lab_->Wait(*pid, timeout);
    EXPECT_TRUE(rc.ok()) << rc.status();
    if (out) *out = lab_->ReadLog(log);
    return rc.ok() ? *rc : -1;
  }

  // Waits until `node` answers a single-node stage through the coordinator.
  bool WaitForAgent(const std::string& node, bool tls) {
    for (int i = 0; i < 50; ++i) {
      std::string out;
      std::vector<std::string> args = {"run", "--stage", "single-node", "--nodes", node, "--quiet"};
      if (!wait_profile_.empty()) args.insert(args.end(), {"--profile", wait_profile_});
      if (Client(args, tls, &out) == 0) {
        return true;
      }
      usleep(200000);
    }
    return false;
  }

  // A plaintext coordinator in c and agents gpu-a (in a) and gpu-b (in b),
  // both registered.
  bool StartPlaintextFleet() {
    port_ = StartCoordinator(false);
    StartAgent("a", "gpu-a", false);
    agent_b_ = StartAgent("b", "gpu-b", false);
    return WaitForAgent("gpu-a", false) && WaitForAgent("gpu-b", false);
  }

  // A two-node stage on gpu-a,gpu-b (JSON output) started in c, not waited for.
  absl::StatusOr<pid_t> SpawnTwoNodeStage(int transfer_seconds, const std::string& log) {
    return lab_->Spawn("c",
                       {NODEPROBE_BINARY, "run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b",
                        "--format", "json", "--transfer-seconds",
                        absl::StrCat(transfer_seconds), "--timeout", "60", "--coordinator",
                        absl::StrCat("10.83.1.1:", port_), "--insecure"},
                       log);
  }

  v1::StageRun ParseRun(const std::string& text) {
    // Progress lines go to stderr, which shares the log: the JSON starts at '{'.
    v1::StageRun run;
    size_t at = text.find('{');
    EXPECT_NE(at, std::string::npos) << text;
    if (at == std::string::npos) return run;
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(text.substr(at), &run).ok()) << text;
    return run;
  }

  testing::TempDir dir_;
  std::unique_ptr<Lab> lab_;
  std::string db_;
  int port_ = 0;
  int coordinators_ = 0;
  int clients_ = 0;
  pid_t coordinator_pid_ = -1;
  pid_t agent_b_ = -1;
  std::string wait_profile_;  // the profile WaitForAgent's stage runs with
  // Every sender's egress rate (tc tbf); 0: unshaped (veth at CPU speed).
  int sender_mbit_ = 1000;
};

// Agents started after this see `gpus` GPUs through the CUDA and NCCL test
// double (tests/fakes/fake_nccl.cc; they inherit the loader's variables
// from this process, Lab::Spawn); ClearFakeGpus() undoes it and the
// fake's failure knobs.
inline void UseFakeGpus(const char* fake_library, int gpus) {
  setenv("NODEPROBE_CUDART_LIBRARY", fake_library, 1);
  setenv("NODEPROBE_NCCL_LIBRARY", fake_library, 1);
  setenv("FAKE_CUDA_DEVICES", std::to_string(gpus).c_str(), 1);
}
inline void ClearFakeGpus() {
  for (const char* v :
       {"NODEPROBE_CUDART_LIBRARY", "NODEPROBE_NCCL_LIBRARY", "FAKE_CUDA_DEVICES",
        "FAKE_NCCL_FAIL_RANK", "FAKE_NCCL_FAIL", "FAKE_NCCL_FAIL_AFTER", "FAKE_NCCL_DELAY_US"}) {
    unsetenv(v);
  }
}

inline bool HasFinding(const v1::StageRun& run, const std::string& code, const std::string& node) {
  for (const auto& f : run.findings()) {
    if (f.code() == code && f.device() == node) return true;
  }
  return false;
}

// The cluster stage on four agents (a, b, d, e around the router c), every
// sender shaped to 1 Gbit/s; gpu-e's sender to a tenth of that.
class ClusterLabTest : public ControlPlaneLabTest {
 protected:
  void SetUp() override {
    ControlPlaneLabTest::SetUp();
    if (IsSkipped()) return;
    for (const char* h : {"d", "e"}) ASSERT_TRUE(lab_->AddHost(h).ok());
    ASSERT_TRUE(lab_->Link("c", "10.83.3.1/24", "d", "10.83.3.2/24").ok());
    ASSERT_TRUE(lab_->Link("c", "10.83.4.1/24", "e", "10.83.4.2/24").ok());
    ASSERT_TRUE(lab_->Exec("d", "ip route add default via 10.83.3.1").ok());
    ASSERT_TRUE(lab_->Exec("e", "ip route add default via 10.83.4.1").ok());
    if (sender_mbit_ > 0) {
      ASSERT_TRUE(lab_->Shape("d", "dc", sender_mbit_).ok());
      ASSERT_TRUE(lab_->Shape("e", "ec", sender_mbit_).ok());
    }
  }
  // The coordinator and the four agents; `each_agent` sees each agent's
  // pid as it starts (a test that puts them in a cgroup).
  bool StartFourNodes(const std::function<void(pid_t)>& each_agent = {}) {
    port_ = StartCoordinator(false);
    for (const auto& [host, node] : std::vector<std::pair<std::string, std::string>>{
             {"a", "gpu-a"}, {"b", "gpu-b"}, {"d", "gpu-d"}, {"e", "gpu-e"}}) {
      const pid_t pid = StartAgent(host, node, false);
      if (each_agent) each_agent(pid);
    }
    for (const char* node : {"gpu-a", "gpu-b", "gpu-d", "gpu-e"}) {
      if (!WaitForAgent(node, false)) return false;
    }
    return true;
  }
  int Cluster(std::vector<std::string> extra, std::string* out) {
    std::vector<std::string> args = {"run", "--stage", "cluster", "--format", "json",
                                     "--transfer-seconds", "1", "--timeout", "120"};
    args.insert(args.end(), extra.begin(), extra.end());
    return Client(args, false, out, absl::Seconds(150));
  }
};

}  // namespace nodeprobe::lab
