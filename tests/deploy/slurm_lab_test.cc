// The Slurm health check against real daemons: munged, slurmctld and one
// slurmd for this machine (Debian's slurm-wlm), on a slurm.conf the test
// writes into a temporary directory and on ports of its own. A captured
// node with an RDMA port down, given through the wrapper's config, drains
// the node with our reason; the port back up resumes it; an operator's
// drain is left alone; a job running on the node (srun) makes intrusive
// probes SKIP NODE_BUSY; the pre-flight task prolog stops a task whose own
// environment is wrong, says why in its output, and leaves the node alone.
// The daemons are stopped by their PIDs.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "platform/child_process.h"
#include "platform/node_busy.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/loopback_ports.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using testing::CommandResult;
using testing::RunBinary;
using testing::WriteFile;

bool Executable(const std::string& p) { return access(p.c_str(), X_OK) == 0; }

std::string ShortHostName() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  std::string s = name;
  return s.substr(0, s.find('.'));
}

// A daemon in the foreground, stopped by PID (SIGTERM, then SIGKILL).
class Daemon {
 public:
  Daemon(const std::string& exe, const std::vector<std::string>& args) {
    absl::StatusOr<platform::ChildProcess> p = platform::ChildProcess::Start(exe, args);
    if (p.ok()) proc_.emplace(*std::move(p));
  }
  ~Daemon() { Stop(); }
  bool started() const { return proc_.has_value(); }
  void Stop() {
    if (!proc_.has_value()) return;
    kill(proc_->pid(), SIGTERM);
    const absl::Time until = absl::Now() + absl::Seconds(10);
    while (!proc_->eof() && absl::Now() < until) {
      (void)proc_->ReadMore(absl::Now() + absl::Milliseconds(200));
    }
    proc_->Kill();
    proc_.reset();
  }

 private:
  std::optional<platform::ChildProcess> proc_;
};

class SlurmLabTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* exe : {"/usr/sbin/munged", "/usr/sbin/slurmctld", "/usr/sbin/slurmd",
                            "/usr/bin/scontrol", "/usr/bin/sinfo", "/usr/bin/srun"}) {
      if (!Executable(exe)) GTEST_SKIP() << exe << " missing: apt-get install slurm-wlm munge";
    }
    if (geteuid() != 0) GTEST_SKIP() << "slurmd runs jobs as their user: needs root";
    node_ = ShortHostName();
    const std::string d = dir_.path();
    chmod(d.c_str(), 0700);  // munged refuses a key or socket others can reach
    mkdir((d + "/state").c_str(), 0700);
    mkdir((d + "/spool").c_str(), 0700);
    WriteFile(d + "/munge.key", std::string(1024, 'k') + node_);
    chmod((d + "/munge.key").c_str(), 0400);
    conf_ = d + "/slurm.conf";
    WriteFile(conf_,
              absl::StrCat(
                  "ClusterName=nodeprobe-test\nSlurmctldHost=", node_, "(127.0.0.1)\n",
                  "SlurmctldPort=", testing::FreeLoopbackPort(),
                  "\nSlurmdPort=", testing::FreeLoopbackPort(), "\n",
                  "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=", d, "/munge.sock\n",
                  "StateSaveLocation=", d, "/state\nSlurmdSpoolDir=", d, "/spool\n",
                  "SlurmctldPidFile=", d, "/slurmctld.pid\nSlurmdPidFile=", d, "/slurmd.pid\n",
                  "SlurmctldLogFile=", d, "/slurmctld.log\nSlurmdLogFile=", d, "/slurmd.log\n",
                  "SlurmUser=root\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n",
                  "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/"
                  "none\n",
                  "SchedulerType=sched/builtin\nSelectType=select/linear\nReturnToService=2\n",
                  "MpiDefault=none\n",
                  // Pre-flight before every task (deploy/slurm); without its config
                  // (NODEPROBE_PREFLIGHT_CONF) it finds no nodeprobe and lets tasks be.
                  "TaskProlog=", NODEPROBE_DEPLOY_DIR, "/slurm/nodeprobe-preflight-task-prolog\n",
                  "NodeName=", node_, " NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN\n",
                  "PartitionName=debug Nodes=", node_, " Default=YES MaxTime=INFINITE State=UP\n"));
    setenv("SLURM_CONF", conf_.c_str(), 1);
    munged_.emplace("/usr/sbin/munged",
                    std::vector<std::string>{"--foreground", "--force", "--socket=" + d + "/munge.sock",
                                             "--key-file=" + d + "/munge.key",
                                             "--pid-file=" + d + "/munged.pid",
                                             "--log-file=" + d + "/munged.log",
                                             "--seed-file=" + d + "/munged.seed"});
    absl::SleepFor(absl::Milliseconds(300));
    slurmctld_.emplace("/usr/sbin/slurmctld", std::vector<std::string>{"-D", "-i", "-f", conf_});
    slurmd_.emplace("/usr/sbin/slurmd", std::vector<std::string>{"-D", "-f", conf_, "-N", node_});
    ASSERT_TRUE(munged_->started() && slurmctld_->started() && slurmd_->started());
    for (int i = 0; i < 150 && State() != "idle"; ++i) absl::SleepFor(absl::Milliseconds(200));
    ASSERT_EQ(State(), "idle") << "slurmd did not register; see " << d << "/slurmd.log";
  }

  void TearDown() override {
    slurmd_.reset();
    slurmctld_.reset();
    munged_.reset();
    unsetenv("SLURM_CONF");
  }

  // The node's state as sinfo prints it ("idle", "drained", "draining").
  std::string State() {
    CommandResult r = RunBinary("/usr/bin/sinfo", {"-h", "-N", "-n", node_, "-o", "%T"});
    return std::string(absl::StripAsciiWhitespace(r.out));
  }
  std::string Reason() {
    CommandResult r = RunBinary("/usr/bin/sinfo", {"-h", "-R", "-n", node_, "-o", "%E"});
    return std::string(absl::StripAsciiWhitespace(r.out));
  }

  // The wrapper slurmd would run, with its config pointing at `args`.
  CommandResult HealthCheck(const std::string& args) {
    const std::string cfg = dir_.path() + "/slurm-health.conf";
    WriteFile(cfg, absl::StrCat("NODEPROBE=", NODEPROBE_BINARY, "\nNODEPROBE_ARGS=\"", args,
                                " --node ", node_, " --scontrol /usr/bin/scontrol\"\n"));
    setenv("NODEPROBE_SLURM_HEALTH_CONF", cfg.c_str(), 1);
    CommandResult r = RunBinary("/bin/sh", {std::string(NODEPROBE_DEPLOY_DIR) +
                                            "/slurm/nodeprobe-slurm-health"});
    unsetenv("NODEPROBE_SLURM_HEALTH_CONF");
    return r;
  }

  testing::TempDir dir_;
  std::string node_, conf_;
  std::optional<Daemon> munged_, slurmctld_, slurmd_;
};

TEST_F(SlurmLabTest, AFailingNodeIsDrainedWithOurReasonThenResumed) {
  auto host = testing::HwlocXeonHost();
  ASSERT_TRUE(host.ok()) << host.status();
  const std::string capture = (*host)->sys_root.substr(0, (*host)->sys_root.rfind('/'));
  const std::string port = (*host)->sys_root + "/class/infiniband/mlx4_0/ports/1/state";
  testing::RemoveTree((*host)->sys_root + "/class/infiniband/scif0");
  WriteFile(port, "1: DOWN\n");
  const std::string args = "--capture " + capture + " --probe rdma-devices";

  CommandResult r = HealthCheck(args);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "FAIL: draining")) << r.out;
  EXPECT_TRUE(absl::StartsWith(State(), "drain")) << State();
  EXPECT_EQ(Reason(), "nodeprobe: RDMA_PORT_DOWN");

  WriteFile(port, "4: ACTIVE\n");
  r = HealthCheck(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "resuming")) << r.out;
  // Back in service ("idle*" for a moment, while slurmctld pings it).
  EXPECT_TRUE(absl::StartsWith(State(), "idle")) << State();
  EXPECT_EQ(Reason(), "");

  // An operator's drain is theirs: a passing check leaves it.
  CommandResult drain = RunBinary("/usr/bin/scontrol", {"update", "NodeName=" + node_,
                                                        "State=DRAIN", "Reason=maintenance"});
  ASSERT_EQ(drain.exit_code, 0) << drain.err;
  r = HealthCheck(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Reason(), "maintenance");
  EXPECT_TRUE(absl::StartsWith(State(), "drain")) << State();
}

TEST_F(SlurmLabTest, AJobOnTheNodeMakesIntrusiveProbesSkipNodeBusy) {
  std::optional<platform::ChildProcess> job;
  {
    absl::StatusOr<platform::ChildProcess> p =
        platform::ChildProcess::Start("/usr/bin/srun", {"-N1", "-n1", "sleep", "6"});
    ASSERT_TRUE(p.ok()) << p.status();
    job.emplace(*std::move(p));
  }
  std::vector<std::string> steps;
  for (int i = 0; i < 100 && steps.empty(); ++i) {
    absl::SleepFor(absl::Milliseconds(100));
    steps = platform::SlurmJobsRunning(platform::FileTree("/proc"));
  }
  ASSERT_FALSE(steps.empty()) << "no slurmstepd appeared for the srun";
  CommandResult r = RunBinary(NODEPROBE_BINARY, {"run", "--stage", "single-node", "--probe",
                                                 "rdma-loopback", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "\"NODE_BUSY\"")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "Slurm job ")) << r.out;
  // The job ends by itself; nothing of it may stay to make the next test
  // busy.
  while (!job->eof()) (void)job->ReadMore(absl::Now() + absl::Seconds(20));
  for (int i = 0; i < 100 && !platform::SlurmJobsRunning(platform::FileTree("/proc")).empty();
       ++i) {
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(platform::SlurmJobsRunning(platform::FileTree("/proc")).empty());
}

// The job's own mistake (NCCL_SOCKET_IFNAME naming no interface here): the
// task never starts, the job's output says which variable and what exists,
// and the node stays in service. The same job with a sound environment runs.
TEST_F(SlurmLabTest, ThePreflightTaskPrologStopsAJobInABadEnvironmentNotTheNode) {
  const std::string cfg = dir_.path() + "/preflight.conf";
  WriteFile(cfg, absl::StrCat("NODEPROBE=", NODEPROBE_BINARY, "\n"));
  CommandResult r =
      RunBinary("/usr/bin/env", {"NODEPROBE_PREFLIGHT_CONF=" + cfg, "NCCL_SOCKET_IFNAME=nosuch",
                                 "/usr/bin/srun", "-N1", "-n1", "/bin/echo", "task started"});
  EXPECT_NE(r.exit_code, 0) << r.out << r.err;
  EXPECT_FALSE(absl::StrContains(r.out, "task started")) << r.out;
  EXPECT_TRUE(absl::StrContains(r.out, "nodeprobe preflight: ")) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "NCCL_SOCKET_IFNAME=nosuch matches no up interface"))
      << r.out;
  EXPECT_TRUE(absl::StartsWith(State(), "idle")) << State() << ": " << Reason();
  r = RunBinary("/usr/bin/env", {"NODEPROBE_PREFLIGHT_CONF=" + cfg, "/usr/bin/srun", "-N1", "-n1",
                                 "/bin/echo", "task started"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "task started")) << r.out << r.err;
}

}  // namespace
}  // namespace nodeprobe
