// The agent's kernel-log watcher: kmsg records read as dmesg lines, the
// window a stage asks about, events that last until a GPU reset, the ring's
// bound, a FIFO followed as writers come and go, and the /metrics counters.
#include "agent/kernel_watch.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "agent/agent_metrics.h"
#include "gtest/gtest.h"
#include "probes/transfer/transfer_profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::agent {
namespace {

// The Xid 48 (double-bit ECC: the GPU needs a reset) and the Xid 64 that
// follows it in the GPU operator issue's syslog capture.
std::string FixtureXid(int code) {
  const std::string log =
      testing::ReadFixture("xid/issue-gpuoperator1146-xid48-dbe-xid64-syslog.txt");
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (line.find(absl::StrCat("): ", code, ",")) != absl::string_view::npos) {
      return std::string(line);
    }
  }
  ADD_FAILURE() << "no Xid " << code << " in the fixture";
  return "";
}

// Xid 13 (an application's fault: WARN) from gpud's capture.
std::string FixtureXid13() {
  const std::string log = testing::ReadFixture("xid/gpud-xid13-xid109-ctx-switch-timeout.txt");
  for (absl::string_view line : absl::StrSplit(log, '\n')) {
    if (line.find("): 13,") != absl::string_view::npos) return std::string(line);
  }
  ADD_FAILURE() << "no Xid 13 in the fixture";
  return "";
}

bool HasCode(const v1::ProbeResult& r, const std::string& code) {
  for (const v1::Finding& f : r.findings()) {
    if (f.code() == code) return true;
  }
  return false;
}

TEST(KmsgRecordTest, ARecordReadsAsADmesgLineWithItsTime) {
  const KmsgLine k = FromKmsgRecord(
      "4,1234,5140900,-;NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', name=<unknown>, DBE");
  EXPECT_EQ(k.monotonic_us, 5140900);
  EXPECT_EQ(k.line,
            "[    5.140900] NVRM: Xid (PCI:0000:07:00): 48, pid='<unknown>', "
            "name=<unknown>, DBE");
  // Caller and other fields after the timestamp (newer kernels) too.
  EXPECT_EQ(FromKmsgRecord("6,7,12,c,caller=T1;hello").line, "[    0.000012] hello");
  EXPECT_EQ(FromKmsgRecord(" SUBSYSTEM=pci").line, "");  // a dictionary line
  // Not a record: as it came, no time.
  const KmsgLine plain = FromKmsgRecord("[  219.47] NVRM: Xid; text");
  EXPECT_EQ(plain.line, "[  219.47] NVRM: Xid; text");
  EXPECT_EQ(plain.monotonic_us, -1);
  EXPECT_EQ(FromKmsgRecord("a,b,c;x").monotonic_us, -1);
}

TEST(KernelWatchTest, AWindowHoldsOnlyWhatHappenedInIt) {
  testing::TempDir sys;
  KernelWatch::Options o;
  o.sys_root = sys.path();
  KernelWatch w(o);
  // Nothing seen yet: a clean window, not "nothing to judge".
  v1::ProbeResult clean = w.Window(absl::Seconds(30));
  EXPECT_EQ(clean.verdict(), v1::PASS);
  EXPECT_EQ(clean.findings_size(), 0);
  w.AddLine(FixtureXid13(), absl::Now() - absl::Seconds(100));
  w.AddLine("some line no driver of ours wrote", absl::Now());
  v1::ProbeResult recent = w.Window(absl::Seconds(30));
  EXPECT_EQ(recent.probe(), "kernel-events");
  EXPECT_EQ(recent.kernel_log().events_size(), 0) << recent.DebugString();
  EXPECT_FALSE(HasCode(recent, "GPU_XID"));
  v1::ProbeResult longer = w.Window(absl::Seconds(300));
  ASSERT_EQ(longer.kernel_log().events_size(), 1) << longer.DebugString();
  EXPECT_EQ(longer.kernel_log().events(0).code(), 13);
  EXPECT_TRUE(HasCode(longer, "GPU_XID"));
  EXPECT_EQ(longer.evidence().at("kernel-events.window"), "the last 300 s");
}

TEST(KernelWatchTest, AGpuThatNeedsAResetStaysUntilItLeavesAndComesBack) {
  testing::TempDir sys;
  const std::string fn = sys.path() + "/bus/pci/devices/0000:07:00.0";
  testing::WriteFile(fn + "/vendor", "0x10de\n");  // makes the folders
  ASSERT_EQ(unlink((fn + "/vendor").c_str()), 0);
  KernelWatch::Options o;
  o.sys_root = sys.path();
  KernelWatch w(o);
  w.AddLine(FixtureXid(48), absl::Now() - absl::Hours(2));
  w.AddLine(FixtureXid(64), absl::Now() - absl::Hours(2));
  // Hours later, in a one-minute window: the Xid 48 is still there (the
  // Xid 64, no reset needed, is not); the GPU is present but was never reset.
  v1::ProbeResult later = w.Window(absl::Minutes(1));
  ASSERT_EQ(later.kernel_log().events_size(), 1) << later.DebugString();
  EXPECT_EQ(later.kernel_log().events(0).code(), 48);
  EXPECT_TRUE(HasCode(later, "GPU_XID"));
  EXPECT_NE(later.evidence().at("kernel-events.waiting_for_reset").find("0000:07:00"),
            std::string::npos);
  // Removed (as a reset or recovery does): still waiting.
  ASSERT_EQ(rmdir(fn.c_str()), 0);
  EXPECT_TRUE(HasCode(w.Window(absl::Minutes(1)), "GPU_XID"));
  // Back on the bus: cleared.
  ASSERT_EQ(mkdir(fn.c_str(), 0755), 0);
  v1::ProbeResult after = w.Window(absl::Minutes(1));
  EXPECT_EQ(after.findings_size(), 0) << after.DebugString();
  EXPECT_EQ(after.verdict(), v1::PASS);
  EXPECT_EQ(after.evidence().count("kernel-events.waiting_for_reset"), 0u);
}

// A PCIe function as the kernel's AER ABI samples show it (pcie-aer/
// linux-abi-aer_dev_*-sample.txt), its corrected Receiver Errors at `rx`.
void WriteAerFunction(const std::string& sys, const std::string& fn, int rx, int nonfatal) {
  const std::string dir = sys + "/bus/pci/devices/" + fn;
  std::string cor = testing::ReadFixture("pcie-aer/linux-abi-aer_dev_correctable-sample.txt");
  cor.replace(cor.find("Receiver Error 2"), 16, absl::StrCat("Receiver Error ", rx));
  cor.replace(cor.find("TOTAL_ERR_COR 2"), 15, absl::StrCat("TOTAL_ERR_COR ", rx));
  testing::WriteFile(dir + "/aer_dev_correctable", cor);
  std::string nf = testing::ReadFixture("pcie-aer/linux-abi-aer_dev_nonfatal-sample.txt");
  nf.replace(nf.find("Completion Timeout 0"), 20, absl::StrCat("Completion Timeout ", nonfatal));
  nf.replace(nf.find("TOTAL_ERR_NONFATAL 0"), 20, absl::StrCat("TOTAL_ERR_NONFATAL ", nonfatal));
  testing::WriteFile(dir + "/aer_dev_nonfatal", nf);
  testing::WriteFile(dir + "/aer_dev_fatal",
                     testing::ReadFixture("pcie-aer/linux-abi-aer_dev_fatal-sample.txt"));
}

TEST(KernelWatchTest, AerCountersThatGrowDuringTheWindowAreJudged) {
  testing::TempDir sys;
  WriteAerFunction(sys.path(), "0000:00:1c.0", 2, 0);
  testing::WriteFile(sys.path() + "/bus/pci/devices/0000:00:00.0/vendor", "0x8086\n");
  const kernel::AerSnapshot read = kernel::ReadAerCounters(platform::FileTree(sys.path()));
  ASSERT_EQ(read.size(), 1u);  // the host bridge has no AER files: absent, not zero
  EXPECT_EQ(read.at("0000:00:1c.0").corrected, 2u);
  EXPECT_EQ(read.at("0000:00:1c.0").bits.at("Receiver Error"), 2u);
  KernelWatch::Options o;
  o.sys_root = sys.path();
  KernelWatch w(o);
  w.SampleCounters();  // the baseline
  // Quiet: nothing grew.
  v1::ProbeResult quiet = w.Window(absl::Minutes(1));
  EXPECT_EQ(quiet.findings_size(), 0) << quiet.DebugString();
  EXPECT_EQ(quiet.verdict(), v1::PASS);
  // Two more corrected errors in moments: far over the default 6 an hour.
  WriteAerFunction(sys.path(), "0000:00:1c.0", 4, 0);
  v1::ProbeResult cor = w.Window(absl::Minutes(1));
  ASSERT_TRUE(HasCode(cor, "PCIE_AER_CORRECTED")) << cor.DebugString();
  EXPECT_NE(cor.findings(0).message().find("Receiver Error +2"), std::string::npos)
      << cor.findings(0).message();
  EXPECT_FALSE(HasCode(cor, "PCIE_AER_UNCORRECTED"));
  // A profile that allows that many: only a measurement.
  WriteAerFunction(sys.path(), "0000:00:1c.0", 6, 0);
  Profile lenient;
  lenient.MutableSection<FaultRules>().aer_corrected_max_per_hour = 100000;
  v1::ProbeResult allowed = w.Window(absl::Minutes(1), lenient);
  EXPECT_EQ(allowed.findings_size(), 0) << allowed.DebugString();
  EXPECT_EQ(allowed.measurements_size(), 1);
  // One uncorrected (a completion timeout): FAIL whatever the rate.
  WriteAerFunction(sys.path(), "0000:00:1c.0", 6, 1);
  v1::ProbeResult unc = w.Window(absl::Minutes(1), lenient);
  ASSERT_TRUE(HasCode(unc, "PCIE_AER_UNCORRECTED")) << unc.DebugString();
  EXPECT_NE(unc.findings(0).message().find("Completion Timeout +1"), std::string::npos);
  // Cleared by a reset (the counters went back): a new baseline, no finding.
  WriteAerFunction(sys.path(), "0000:00:1c.0", 0, 0);
  EXPECT_EQ(w.Window(absl::Minutes(1)).findings_size(), 0);
}

// NVLink error counters, as the agent's worker reads them through NVML,
// judged over each stage's window like the AER counters: a recovery (the
// link retrained) during the stage is GPU_NVLINK_ERRORS on that link.
TEST(KernelWatchTest, NvlinkErrorsThatGrowDuringTheWindowAreJudged) {
  uint64_t recovery = 0;
  int reads = 0;
  KernelWatch::Options o;
  o.sys_root = "";  // no sysfs counters: only the GPUs'
  o.read_gpus = [&]() -> std::optional<v1::GpuReport> {
    ++reads;
    v1::GpuReport report;
    v1::GpuInfo* g = report.add_gpus();
    g->set_bus_id("0000:19:00.0");
    v1::NvLinkErrors* e = g->add_nvlink_errors();
    e->set_link(5);
    e->set_replay(3);
    e->set_recovery(recovery);
    return report;
  };
  KernelWatch w(o);
  w.SampleCounters();  // the baseline
  v1::ProbeResult quiet = w.Window(absl::Minutes(1));
  EXPECT_EQ(quiet.findings_size(), 0) << quiet.DebugString();
  EXPECT_NE(quiet.evidence().at("kernel-events.counters").find("1 NVLinks"), std::string::npos)
      << quiet.DebugString();
  recovery = 1;
  v1::ProbeResult retrained = w.Window(absl::Minutes(1));
  ASSERT_TRUE(HasCode(retrained, "GPU_NVLINK_ERRORS")) << retrained.DebugString();
  EXPECT_NE(retrained.findings(0).device().find("0000:19:00.0"), std::string::npos);
  EXPECT_EQ(reads, 3);
}

TEST(KernelWatchTest, APortThatFlappedOrTookSymbolErrorsBetweenTransfersIsSaid) {
  testing::TempDir sys;
  const std::string counters = sys.path() + "/class/infiniband/mlx5_0/ports/1/counters/";
  auto set = [&](int downed, int recovery, int symbols) {
    testing::WriteFile(counters + "link_downed", absl::StrCat(downed, "\n"));
    testing::WriteFile(counters + "link_error_recovery", absl::StrCat(recovery, "\n"));
    testing::WriteFile(counters + "symbol_error", absl::StrCat(symbols, "\n"));
  };
  set(1, 0, 12);  // what the port had before the agent started: not a finding
  KernelWatch::Options o;
  o.sys_root = sys.path();
  KernelWatch w(o);
  w.SampleCounters();
  EXPECT_EQ(w.Window(absl::Minutes(1)).findings_size(), 0);
  set(2, 1, 12);  // it went down and retrained
  v1::ProbeResult flap = w.Window(absl::Minutes(1));
  ASSERT_EQ(flap.findings_size(), 1) << flap.DebugString();
  EXPECT_EQ(flap.findings(0).code(), "RDMA_LINK_FLAPPED");
  EXPECT_EQ(flap.findings(0).device(), "mlx5_0:1");
  EXPECT_NE(flap.findings(0).message().find("link_downed +1, link_error_recovery +1"),
            std::string::npos)
      << flap.findings(0).message();
  // Symbol errors: the profile's transfer.error_counters_grew says how bad.
  set(2, 1, 40);
  Profile marginal;
  marginal.MutableSection<TransferBars>().error_counters_grew = v1::WARN;
  v1::ProbeResult symbols = w.Window(absl::Seconds(1), marginal);
  bool found = false;
  for (const v1::Finding& f : symbols.findings()) {
    if (f.code() != "RDMA_ERROR_COUNTERS_GREW") continue;
    found = true;
    EXPECT_EQ(f.severity(), v1::WARN);
    EXPECT_NE(f.message().find("symbol_error +"), std::string::npos) << f.message();
  }
  EXPECT_TRUE(found) << symbols.DebugString();
}

TEST(KernelWatchTest, TheRingIsBoundedAndSaysWhatItDropped) {
  KernelWatch::Options o;
  o.sys_root = "";  // no counters
  KernelWatch w(o);
  const std::string xid = FixtureXid13();
  for (size_t i = 0; i < KernelWatch::kMaxEvents + 10; ++i) w.AddLine(xid, absl::Now());
  w.AddLine(std::string(100000, 'x') + xid, absl::Now());  // cut before the Xid: nothing
  v1::ProbeResult r = w.Window(absl::Minutes(1));
  EXPECT_EQ(r.evidence().at("kernel-events.ring_dropped"), "10");
  EXPECT_EQ(r.kernel_log().lines(), KernelWatch::kMaxEvents);
}

// A watch following a FIFO made at `fifo`, counting Xids into `xids`.
absl::StatusOr<std::unique_ptr<KernelWatch>> WatchFifo(const std::string& fifo,
                                                       std::atomic<int>* xids) {
  if (mkfifo(fifo.c_str(), 0600) != 0) return absl::InternalError("mkfifo");
  KernelWatch::Options o;
  o.path = fifo;
  o.sys_root = "";
  o.on_event = [xids](const v1::KernelEvent& e) {
    if (e.kind() == "xid") ++*xids;
  };
  return KernelWatch::Start(o);
}

TEST(KernelWatchTest, ItFollowsAFifoAsWritersComeAndGoAndStopsAtOnce) {
  testing::TempDir dir;
  const std::string fifo = dir.path() + "/kmsg";
  std::atomic<int> xids{0};
  absl::StatusOr<std::unique_ptr<KernelWatch>> w = WatchFifo(fifo, &xids);
  ASSERT_TRUE(w.ok()) << w.status();
  // Two writers, one after the other: a kmsg record, then a dmesg line
  // split across two writes.
  const std::string line = FixtureXid13();
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);  // a record's time: since boot
  const std::string record = absl::StrCat("4,99,", now.tv_sec * 1000000 + now.tv_nsec / 1000, ",-;",
                                          line.substr(line.find("NVRM:")), "\n");
  for (const std::string& text : {record, line.substr(0, 20)}) {
    const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
  }
  {
    const std::string rest = line.substr(20) + "\n";
    const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(write(fd, rest.data(), rest.size()), static_cast<ssize_t>(rest.size()));
    close(fd);
  }
  for (int i = 0; i < 100 && xids < 2; ++i) usleep(50000);
  EXPECT_EQ(xids.load(), 2);
  // A FIFO's lines have no time of their own: stamped as they arrive.
  EXPECT_EQ((*w)->Window(absl::Minutes(1)).kernel_log().events_size(), 2);
  const absl::Time stop = absl::Now();
  w->reset();
  EXPECT_LT(absl::Now() - stop, absl::Seconds(2));
}

// A writer's last line without its newline is whole once the FIFO goes
// quiet: it is read, not lost.
TEST(KernelWatchTest, AFifosLastLineWithoutANewlineIsRead) {
  testing::TempDir dir;
  const std::string fifo = dir.path() + "/kmsg";
  std::atomic<int> xids{0};
  absl::StatusOr<std::unique_ptr<KernelWatch>> w = WatchFifo(fifo, &xids);
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string line = FixtureXid13();  // no newline after it
  const int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  close(fd);
  for (int i = 0; i < 100 && xids < 1; ++i) usleep(50000);
  EXPECT_EQ(xids.load(), 1);
}

TEST(KernelWatchTest, APathItCannotReadIsSaid) {
  KernelWatch::Options o;
  o.path = "/nonexistent/kmsg";
  absl::StatusOr<std::unique_ptr<KernelWatch>> w = KernelWatch::Start(o);
  ASSERT_FALSE(w.ok());
  EXPECT_TRUE(absl::IsNotFound(w.status()));
  EXPECT_NE(w.status().message().find("/nonexistent/kmsg"), std::string::npos);
  testing::TempDir dir;
  o.path = dir.path();
  w = KernelWatch::Start(o);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("is a directory"), std::string::npos) << w.status();
}

TEST(AgentMetricsTest, KernelEventsAreCountedByDeviceAndCode) {
  AgentMetrics m;
  KernelWatch::Options o;
  o.sys_root = "";
  o.on_event = [&](const v1::KernelEvent& e) { m.KernelEvent(e); };
  KernelWatch w(o);
  w.AddLine(FixtureXid(48), absl::Now());
  w.AddLine(FixtureXid(48), absl::Now());
  w.AddLine(FixtureXid(64), absl::Now());
  const std::string text = m.Text();
  EXPECT_NE(text.find("nodeprobe_gpu_xid_total{code=\"48\",gpu=\"0000:07:00\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("nodeprobe_gpu_xid_total{code=\"64\",gpu=\"0000:07:00\"} 1"),
            std::string::npos)
      << text;
}

// A log full of distinct (forged) addresses makes at most
// kMaxLogLabelValues series per label, then "other".
TEST(AgentMetricsTest, LogLabelsAreBounded) {
  AgentMetrics m;
  for (int i = 0; i < 3000; ++i) {
    v1::KernelEvent e;
    e.set_kind("aer");
    char dev[16];
    snprintf(dev, sizeof(dev), "0000:%02x:%02x.0", i / 256, i % 256);
    e.set_device(dev);
    e.set_severity("Corrected");
    m.KernelEvent(e);
  }
  const std::string text = m.Text();
  size_t series = 0;
  for (size_t at = text.find("nodeprobe_pcie_aer_errors_total{"); at != std::string::npos;
       at = text.find("nodeprobe_pcie_aer_errors_total{", at + 1)) {
    ++series;
  }
  EXPECT_EQ(series, AgentMetrics::kMaxLogLabelValues + 1);
  EXPECT_NE(text.find("device=\"other\""), std::string::npos);
  EXPECT_NE(text.find("severity=\"Corrected\"} 2936"), std::string::npos) << text.substr(0, 400);
}

}  // namespace
}  // namespace nodeprobe::agent
