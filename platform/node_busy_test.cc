// The busy-node guard reads what runs on the node: Slurm job steps from
// real /proc entries, GPU processes from NVML's pids.
#include "platform/node_busy.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::platform {
namespace {

// A process that looks like a Slurm job step to /proc: comm "slurmstepd"
// (the executable's name) and the title slurmstepd gives itself. Each in a
// directory of its own: overwriting a copy another step already runs is
// ETXTBSY.
pid_t StartStep(const std::string& dir, const std::string& title,
                const char* seconds = "30") {
  static int steps = 0;
  const std::string step_dir = absl::StrCat(dir, "/step", ++steps);
  std::filesystem::create_directory(step_dir);
  const std::string exe = step_dir + "/slurmstepd";
  std::filesystem::copy_file("/bin/sleep", exe);
  const pid_t pid = fork();
  if (pid == 0) {
    execl(exe.c_str(), title.c_str(), seconds, static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

TEST(NodeBusyTest, ARunningJobStepIsNamedWithItsJobOnce) {
  testing::TempDir dir;
  const pid_t extern_step = StartStep(dir.path(), "slurmstepd: [4242.extern]");
  const pid_t batch_step = StartStep(dir.path(), "slurmstepd: [4242.batch]");
  const FileTree proc("/proc");
  // Until both execs are through (comm changes before the new command line
  // is readable: meanwhile the job reads as "?").
  std::vector<std::string> jobs;
  for (int i = 0; i < 100; ++i) {
    jobs = SlurmJobsRunning(proc);
    if (jobs.size() == 1 && jobs[0].find("job 4242 ") != std::string::npos) break;
    absl::SleepFor(absl::Milliseconds(20));
  }
  kill(extern_step, SIGKILL);
  kill(batch_step, SIGKILL);
  waitpid(extern_step, nullptr, 0);
  waitpid(batch_step, nullptr, 0);
  ASSERT_EQ(jobs.size(), 1u) << ::testing::PrintToString(jobs);
  EXPECT_EQ(jobs[0].rfind("Slurm job 4242 (slurmstepd pid ", 0), 0u) << jobs[0];
  // Gone with its steps.
  EXPECT_TRUE(SlurmJobsRunning(proc).empty());
}

// Seen, then looked at again: what is gone by then did not keep the node
// busy; what stays does.
TEST(NodeBusyTest, OnlyWhatIsStillThereAfterTheSecondLookCounts) {
  testing::TempDir dir;
  // A step that ends a second from now: seen by the first look, gone by
  // the second, 2 s later (one look alone would call the node busy).
  const pid_t ending = StartStep(dir.path(), "slurmstepd: [5.0]", "1");
  for (int i = 0; i < 100 && SlurmJobsRunning(FileTree("/proc")).empty(); ++i) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  ASSERT_FALSE(SlurmJobsRunning(FileTree("/proc")).empty());
  // Reaped while the guard waits, as slurmd reaps its steps.
  std::thread reaper([ending] { waitpid(ending, nullptr, 0); });
  EXPECT_TRUE(WhatKeepsNodeBusy(HostPaths{}, absl::Seconds(2)).empty());
  reaper.join();
  const pid_t staying = StartStep(dir.path(), "slurmstepd: [6.extern]");
  std::vector<std::string> busy;
  for (int i = 0; i < 20 && busy.empty(); ++i) busy = WhatKeepsNodeBusy(HostPaths{}, absl::Milliseconds(50));
  kill(staying, SIGKILL);
  waitpid(staying, nullptr, 0);
  ASSERT_EQ(busy.size(), 1u);
  EXPECT_NE(busy[0].find("Slurm job 6 "), std::string::npos) << busy[0];
}

TEST(NodeBusyTest, GpuProcessesAreNamedWhereVisible) {
  v1::GpuReport gpus;
  v1::GpuInfo* g = gpus.add_gpus();
  g->set_bus_id("0000:19:00.0");
  g->set_compute_processes(2);
  g->add_compute_pids(static_cast<uint32_t>(getpid()));
  g->add_compute_pids(4000000);  // another pid namespace's: no name here
  v1::GpuInfo* counted = gpus.add_gpus();  // a driver that gave no pids
  counted->set_bus_id("0000:3b:00.0");
  counted->set_compute_processes(1);
  gpus.add_gpus()->set_bus_id("0000:5d:00.0");  // idle
  const std::vector<std::string> busy = GpuProcessesRunning(gpus, FileTree("/proc"));
  ASSERT_EQ(busy.size(), 3u);
  EXPECT_EQ(busy[0], absl::StrCat("GPU 0000:19:00.0: pid ", getpid(), " (node_busy_test)"));
  EXPECT_EQ(busy[1], "GPU 0000:19:00.0: pid 4000000");
  EXPECT_EQ(busy[2], "GPU 0000:3b:00.0: 1 compute process(es)");
}

TEST(NodeBusyTest, ACapturedTreeSaysNothingOfTheLiveNode) {
  HostPaths captured;
  captured.proc_root = "/nonexistent/proc";
  EXPECT_TRUE(WhatKeepsNodeBusy(captured).empty());
}

}  // namespace
}  // namespace nodeprobe::platform
