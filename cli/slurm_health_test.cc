// What slurm-health reads from scontrol and what it decides.
#include "cli/slurm_health.h"

#include "gtest/gtest.h"

namespace nodeprobe::cli {
namespace {

// As scontrol 22.05.8 (Debian 12) printed it for a node drained by us.
constexpr char kDrained[] =
    "NodeName=vm Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 CPUEfctv=1 CPUTot=1 CPULoad=0.75 "
    "AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=127.0.0.1 "
    "NodeHostName=vm Version=22.05.8 OS=Linux 6.18.44-fc-v1252 #1 SMP PREEMPT_DYNAMIC @0  "
    "RealMemory=1 AllocMem=0 FreeMem=22876 Sockets=1 Boards=1 State=ALLOCATED+DRAIN "
    "ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A Partitions=debug  "
    "BootTime=2026-12-04T11:47:00 SlurmdStartTime=2026-12-04T16:46:54 "
    "LastBusyTime=2026-12-04T16:46:55 CfgTRES=cpu=1,mem=1M,billing=1 "
    "AllocTRES=cpu=1,mem=1M,billing=1 CapWatts=n/a CurrentWatts=0 AveWatts=0 "
    "ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s "
    "Reason=nodeprobe: RDMA_PORT_DOWN [root@2026-12-04T16:47:04]\n";

TEST(SlurmHealthTest, ReadsStateAndReasonWithoutSlurmsStamp) {
  const SlurmNode n = ParseScontrolShowNode(kDrained);
  EXPECT_TRUE(n.found);
  EXPECT_TRUE(n.drained);
  EXPECT_EQ(n.reason, "nodeprobe: RDMA_PORT_DOWN");
  const SlurmNode idle = ParseScontrolShowNode("NodeName=vm Arch=x86_64 State=IDLE Weight=1\n");
  EXPECT_TRUE(idle.found);
  EXPECT_FALSE(idle.drained);
  EXPECT_EQ(idle.reason, "");
  EXPECT_FALSE(ParseScontrolShowNode("Node vm not found\n").found);
}

v1::StageReport Report(v1::Verdict verdict, const std::vector<std::string>& fail_codes = {}) {
  v1::StageReport r;
  r.set_verdict(verdict);
  v1::ProbeResult* p = r.add_results();
  for (const std::string& c : fail_codes) {
    v1::Finding* f = p->add_findings();
    f->set_code(c);
    f->set_severity(v1::FAIL);
  }
  v1::Finding* warn = p->add_findings();  // never in the reason
  warn->set_code("MTU_MISMATCH");
  warn->set_severity(v1::WARN);
  return r;
}

TEST(SlurmHealthTest, FailDrainsWithTheFailCodesOnce) {
  const SlurmAction a = DecideSlurmAction(
      Report(v1::FAIL, {"PCIE_LINK_DEGRADED", "RDMA_PORT_DOWN", "PCIE_LINK_DEGRADED"}), {});
  EXPECT_EQ(a.kind, SlurmAction::kDrain);
  EXPECT_EQ(a.reason, "nodeprobe: PCIE_LINK_DEGRADED,RDMA_PORT_DOWN");
}

TEST(SlurmHealthTest, PassResumesOnlyWhatWeDrained) {
  SlurmNode ours{true, true, "nodeprobe: RDMA_PORT_DOWN"};
  SlurmNode theirs{true, true, "maintenance OPS-12"};
  EXPECT_EQ(DecideSlurmAction(Report(v1::PASS), ours).kind, SlurmAction::kResume);
  EXPECT_EQ(DecideSlurmAction(Report(v1::WARN), ours).kind, SlurmAction::kResume);
  EXPECT_EQ(DecideSlurmAction(Report(v1::PASS), theirs).kind, SlurmAction::kNone);
  EXPECT_EQ(DecideSlurmAction(Report(v1::PASS), SlurmNode{true, false, ""}).kind,
            SlurmAction::kNone);
}

TEST(SlurmHealthTest, SkipOrErrorChangesNothing) {
  SlurmNode ours{true, true, "nodeprobe: RDMA_PORT_DOWN"};
  EXPECT_EQ(DecideSlurmAction(Report(v1::ERROR), ours).kind, SlurmAction::kNone);
  EXPECT_EQ(DecideSlurmAction(Report(v1::SKIP), SlurmNode{true, false, ""}).kind,
            SlurmAction::kNone);
}

}  // namespace
}  // namespace nodeprobe::cli
