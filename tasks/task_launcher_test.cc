// The launcher against workers that behave, hang, crash or lie. This test
// binary is its own worker: run as `task_launcher_test task` with
// NP_FAKE_WORKER set, it plays the part named there instead of running
// tests, so every way a worker can end is exercised without a device.
#include "tasks/task_launcher.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::tasks {
namespace {

std::string self_exe;

void Emit(const v1::TaskEvent& ev) {
  google::protobuf::io::FileOutputStream out(1);
  google::protobuf::util::SerializeDelimitedToZeroCopyStream(ev, &out);
  out.Flush();
}

void EmitResult(const std::string& probe, v1::Verdict v) {
  v1::TaskEvent ev;
  ev.mutable_probe_result()->set_probe(probe);
  ev.mutable_probe_result()->set_verdict(v);
  Emit(ev);
}

// The fake worker: a three-probe plan, where the middle probe does what
// `mode` says.
int FakeWorker(const std::string& mode) {
  v1::Task task;
  if (!task.ParseFromFileDescriptor(0)) return 2;
  std::vector<std::string> probes(task.run_probes().probes().begin(),
                                  task.run_probes().probes().end());
  // "stall": the fresh worker after a hang never gets as far as its plan.
  if (!probes.empty() && mode == "hang-then-stall") pause();
  if (probes.empty()) probes = {"one", "two", "three"};
  v1::TaskEvent plan;
  for (const auto& p : probes) plan.mutable_plan()->add_probes(p);
  Emit(plan);
  for (const std::string& p : probes) {
    v1::TaskEvent started;
    started.set_started(p);
    Emit(started);
    if (p == "two" && (mode == "hang" || mode == "hang-then-stall")) pause();
    if (p == "two" && mode == "crash") {
      fprintf(stderr, "fake worker: segfault in two\n");
      // The default action, as a real crash has without a sanitizer (whose
      // SIGSEGV handler would otherwise report and exit 1).
      signal(SIGSEGV, SIG_DFL);
      raise(SIGSEGV);
    }
    if (p == "two" && mode == "garbage") {
      (void)!write(1, "\xff\xff\xff\xff\x0f", 5);  // a 4 GiB "event"
      return 0;
    }
    EmitResult(p, v1::PASS);
  }
  v1::TaskEvent done;
  done.mutable_done()->set_task_id(task.task_id());
  done.mutable_done()->mutable_report()->set_verdict(v1::PASS);
  for (const auto& p : probes) {
    v1::ProbeResult* r = done.mutable_done()->mutable_report()->add_results();
    r->set_probe(p);
    r->set_verdict(v1::PASS);
  }
  Emit(done);
  return 0;
}

v1::Task ProbeTask() {
  v1::Task t;
  t.set_task_id("t1");
  t.mutable_run_probes()->set_stage(v1::SINGLE_NODE);
  return t;
}

std::vector<std::pair<std::string, std::string>> Rows(const v1::TaskResult& r) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& p : r.report().results()) {
    out.emplace_back(p.probe(), p.findings_size() ? p.findings(0).code()
                                                  : v1::Verdict_Name(p.verdict()));
  }
  return out;
}

using Row = std::pair<std::string, std::string>;

TEST(TaskLauncherTest, AWorkerThatAnswersGivesItsReport) {
  setenv("NP_FAKE_WORKER", "ok", 1);
  v1::TaskResult r = RunTask(self_exe, ProbeTask(), absl::Now() + absl::Seconds(10));
  EXPECT_EQ(r.task_id(), "t1");
  EXPECT_EQ(Rows(r), (std::vector<Row>{{"one", "PASS"}, {"two", "PASS"}, {"three", "PASS"}}));
  EXPECT_EQ(r.report().verdict(), v1::PASS);
}

TEST(TaskLauncherTest, AHungProbeIsTaskTimeoutAndTheOthersStillRun) {
  setenv("NP_FAKE_WORKER", "hang", 1);
  const absl::Time start = absl::Now();
  v1::TaskResult r = RunTask(self_exe, ProbeTask(), absl::Now() + absl::Seconds(3));
  // "two" gets the time less a reserve for "three" and for starting the
  // fresh worker it runs in (as long as the first took: long under a
  // sanitizer on a busy host); all within the deadline.
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(3500));
  EXPECT_EQ(Rows(r), (std::vector<Row>{{"one", "PASS"}, {"two", "TASK_TIMEOUT"},
                                       {"three", "PASS"}}));
  EXPECT_EQ(r.report().verdict(), v1::ERROR);
}

TEST(TaskLauncherTest, AFreshWorkerThatNeverStartsLeavesEachProbeItsRow) {
  setenv("NP_FAKE_WORKER", "hang-then-stall", 1);
  const absl::Time start = absl::Now();
  v1::TaskResult r = RunTask(self_exe, ProbeTask(), absl::Now() + absl::Seconds(1));
  EXPECT_LT(absl::Now() - start, absl::Milliseconds(1500));
  EXPECT_EQ(Rows(r), (std::vector<Row>{{"one", "PASS"}, {"two", "TASK_TIMEOUT"},
                                       {"three", "PROBE_DEADLINE_EXCEEDED"}}));
  EXPECT_EQ(r.report().verdict(), v1::ERROR);
}

TEST(TaskLauncherTest, AHungWorkerAloneIsTaskTimeoutAtTheDeadline) {
  v1::Task t;
  t.set_task_id("t3");
  t.mutable_run_path_mtu()->set_peer_host("127.0.0.1");
  setenv("NP_FAKE_WORKER", "hang", 1);  // plans, then waits in "two" forever
  const absl::Time start = absl::Now();
  v1::TaskResult r = RunTask(self_exe, t, absl::Now() + absl::Milliseconds(500));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  ASSERT_EQ(r.result().findings_size(), 1);
  EXPECT_EQ(r.result().findings(0).code(), "TASK_TIMEOUT");
}

TEST(TaskLauncherTest, ACrashCostsOnlyTheProbeThatWasRunning) {
  setenv("NP_FAKE_WORKER", "crash", 1);
  v1::TaskResult r = RunTask(self_exe, ProbeTask(), absl::Now() + absl::Seconds(10));
  ASSERT_EQ(r.report().results_size(), 3);
  EXPECT_EQ(Rows(r)[0], (Row{"one", "PASS"}));
  EXPECT_EQ(Rows(r)[1], (Row{"two", "TASK_FAILED"}));
  // A second worker crashed in "two" again? No: it was only asked for "three".
  EXPECT_EQ(Rows(r)[2], (Row{"three", "PASS"}));
  const std::string msg = r.report().results(1).findings(0).message();
  EXPECT_NE(msg.find("signal 11"), std::string::npos) << msg;
  EXPECT_NE(msg.find("segfault in two"), std::string::npos) << msg;
}

TEST(TaskLauncherTest, AnOversizedEventIsRefusedNotAllocated) {
  setenv("NP_FAKE_WORKER", "garbage", 1);
  v1::TaskResult r = RunTask(self_exe, ProbeTask(), absl::Now() + absl::Seconds(10));
  ASSERT_GE(r.report().results_size(), 2);
  EXPECT_EQ(Rows(r)[1].second, "TASK_FAILED");
  EXPECT_NE(r.report().results(1).findings(0).message().find("too large"), std::string::npos);
}

TEST(TaskLauncherTest, AWorkerThatCannotStartIsTaskFailed) {
  v1::Task t;
  t.set_task_id("t2");
  t.mutable_run_transfer()->set_peer_host("127.0.0.1");
  v1::TaskResult r = RunTask("/nonexistent/worker", t, absl::Now() + absl::Seconds(5));
  ASSERT_EQ(r.result().findings_size(), 1);
  EXPECT_EQ(r.result().findings(0).code(), "TASK_FAILED");
  EXPECT_EQ(r.result().verdict(), v1::ERROR);
  EXPECT_NE(r.result().findings(0).message().find("status 127"), std::string::npos)
      << r.result().findings(0).message();
}

// The worker dies with the thread that started it: a middle process that
// starts a hanging worker and is then SIGKILLed leaves nothing behind.
TEST(TaskLauncherTest, WorkersDieWithTheirLauncher) {
  setenv("NP_FAKE_WORKER", "hang", 1);
  int pids[2];
  ASSERT_EQ(pipe(pids), 0);
  pid_t middle = fork();
  if (middle == 0) {
    absl::StatusOr<platform::TaskWorker> w = platform::TaskWorker::Start(self_exe, ProbeTask());
    pid_t p = w.ok() ? w->pid() : -1;
    (void)!write(pids[1], &p, sizeof(p));
    pause();
    _exit(0);
  }
  pid_t worker = -1;
  ASSERT_EQ(read(pids[0], &worker, sizeof(worker)), static_cast<ssize_t>(sizeof(worker)));
  ASSERT_GT(worker, 0);
  EXPECT_EQ(kill(worker, 0), 0);
  kill(middle, SIGKILL);
  waitpid(middle, nullptr, 0);
  bool gone = false;
  for (int i = 0; i < 200 && !gone; ++i) {
    // Reparented to init (or a subreaper), it is gone once /proc says so or
    // it is a zombie waiting for someone else's wait().
    std::ifstream stat("/proc/" + std::to_string(worker) + "/stat");
    std::string line;
    gone = !std::getline(stat, line) || line.find(") Z") != std::string::npos;
    if (!gone) usleep(10000);
  }
  EXPECT_TRUE(gone) << "worker " << worker << " outlived its launcher";
}

}  // namespace
}  // namespace nodeprobe::tasks

int main(int argc, char** argv) {
  const char* mode = getenv("NP_FAKE_WORKER");
  if (argc >= 2 && strcmp(argv[1], "task") == 0 && mode != nullptr) {
    return nodeprobe::tasks::FakeWorker(mode);
  }
  nodeprobe::tasks::self_exe = "/proc/self/exe";
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
