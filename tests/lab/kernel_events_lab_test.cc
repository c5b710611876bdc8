// Kernel events during a stage, from real agents in the namespace lab:
// gpu-a's agent follows a FIFO as its kernel log (--kmsg); once the
// two-node stage has begun, the test writes the Xid 48 line of a real
// syslog capture into it. That stage's run carries GPU_XID in gpu-a's
// report and is not PASS; the next stage carries it again (a double-bit
// ECC error lasts until the GPU is reset); gpu-a's /metrics counts it, and
// promtool accepts what it serves.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/lab/fleet_fixture.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::lab {
namespace {

const v1::ProbeResult* KernelEventsOf(const v1::StageRun& run, const std::string& node) {
  for (const v1::StageReport& r : run.node_reports()) {
    if (r.node() != node) continue;
    for (const v1::ProbeResult& p : r.results()) {
      if (p.probe() == "kernel-events") return &p;
    }
  }
  return nullptr;
}

bool HasCode(const v1::ProbeResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code) return true;
  }
  return false;
}

TEST_F(ControlPlaneLabTest, AnXidDuringAStageIsInItsResultAndCounted) {
  if (std::system("command -v promtool > /dev/null") != 0) {
    GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
  }
  std::string xid;
  for (absl::string_view line : absl::StrSplit(
           testing::ReadFixture("xid/issue-gpuoperator1146-xid48-dbe-xid64-syslog.txt"), '\n')) {
    if (line.find("): 48,") != absl::string_view::npos) xid = std::string(line);
  }
  ASSERT_FALSE(xid.empty());
  const std::string fifo = dir_.path() + "/kmsg-a";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  port_ = StartCoordinator(false);
  // gpu-a's GPU, through NVML's test double in the agent's workers: its
  // NVLink counters are sampled with the AER ones (the agent never loads
  // NVML itself).
  setenv("NODEPROBE_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1);
  setenv("FAKE_NVML_GPUS", "name=NVIDIA H100,bus=0000:07:00.0,nvlink=18/18,nvlink_errors=1/0/2/0",
         1);
  StartAgent("a", "gpu-a", false, "", {"--kmsg", fifo});
  unsetenv("NODEPROBE_NVML_LIBRARY");
  unsetenv("FAKE_NVML_GPUS");
  agent_b_ = StartAgent("b", "gpu-b", false);
  // A stage before the Xid: clean, and no kernel-events result.
  ASSERT_TRUE(WaitForAgent("gpu-a", false) && WaitForAgent("gpu-b", false));

  absl::StatusOr<pid_t> stage = SpawnTwoNodeStage(3, "xid-stage.log");
  ASSERT_TRUE(stage.ok());
  ASSERT_TRUE(lab_->WaitForLog("xid-stage.log", "single-node probes", absl::Seconds(30)).ok())
      << lab_->ReadLog("xid-stage.log");
  {
    const std::string text = xid + "\n";
    const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
  }
  absl::StatusOr<int> rc = lab_->Wait(*stage, absl::Seconds(90));
  ASSERT_TRUE(rc.ok()) << rc.status();
  const std::string out = lab_->ReadLog("xid-stage.log");
  EXPECT_EQ(*rc, 1) << out;  // FAIL
  v1::StageRun run = ParseRun(out);
  EXPECT_EQ(run.verdict(), v1::FAIL) << out;
  const v1::ProbeResult* events = KernelEventsOf(run, "gpu-a");
  ASSERT_NE(events, nullptr) << out;
  EXPECT_TRUE(HasCode(*events, "GPU_XID")) << events->DebugString();
  EXPECT_TRUE(HasCode(*events, "GPU_RESET_REQUIRED")) << events->DebugString();
  EXPECT_EQ(events->verdict(), v1::FAIL);
  EXPECT_NE(events->evidence().at("kernel-events.counters").find("18 NVLinks"), std::string::npos)
      << events->DebugString();
  EXPECT_EQ(KernelEventsOf(run, "gpu-b"), nullptr);  // its kernel said nothing
  EXPECT_GT(run.pairs_size(), 0) << out;             // and the transfers still ran

  // The next stage, minutes or seconds later: still there until a reset.
  std::string again;
  EXPECT_EQ(Client({"run", "--stage", "single-node", "--nodes", "gpu-a", "--format", "json"}, false,
                   &again),
            1)
      << again;
  const v1::StageRun next = ParseRun(again);
  const v1::ProbeResult* still = KernelEventsOf(next, "gpu-a");
  ASSERT_NE(still, nullptr) << again;
  EXPECT_TRUE(HasCode(*still, "GPU_XID"));

  // gpu-a's /metrics, linted by promtool.
  auto lint = lab_->Spawn("a",
                          {"bash", "-c",
                           "exec 3<>/dev/tcp/127.0.0.1/18519 && "
                           "printf 'GET /metrics HTTP/1.0\r\nHost: a\r\n\r\n' >&3 && "
                           "sed '1,/^\r$/d' <&3 | tee /dev/stderr | promtool check metrics"},
                          "xid-lint.log");
  ASSERT_TRUE(lint.ok());
  auto linted = lab_->Wait(*lint, absl::Seconds(20));
  ASSERT_TRUE(linted.ok());
  const std::string served = lab_->ReadLog("xid-lint.log");
  EXPECT_EQ(*linted, 0) << served;
  EXPECT_NE(served.find("nodeprobe_gpu_xid_total{code=\"48\",gpu=\"0000:07:00\"} 1"),
            std::string::npos)
      << served;
}

}  // namespace
}  // namespace nodeprobe::lab
