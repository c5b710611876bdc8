// How a node's kernel events land in a run: in its report (which, and the
// run, are then no better than the events), at run level when the node has
// no report, nowhere when there were none; the failure stage's own flaps
// are left out.
#include "coordinator/stage_kernel_events.h"

#include "absl/time/clock.h"
#include "coordinator/record_check.h"
#include "gtest/gtest.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

v1::StageRun RunWithPassingReport(v1::Stage stage) {
  v1::StageRun run;
  run.set_run_id("r1");
  run.set_stage(stage);
  v1::StageReport* rep = run.add_node_reports();
  rep->set_node("gpu-a");
  v1::ProbeResult* inv = rep->add_results();
  inv->set_probe("inventory");
  inv->set_verdict(v1::PASS);
  rep->set_verdict(v1::PASS);
  run.set_verdict(RunVerdict(run));
  return run;
}

v1::ProbeResult Events(const std::string& code, v1::Verdict severity) {
  v1::ProbeResult r;
  r.set_probe("kernel-events");
  r.mutable_kernel_log()->add_events()->set_kind(code == "GPU_XID" ? "xid" : "link_down");
  AddFinding(&r, code, severity, "0000:07:00", "what the kernel said");
  r.set_verdict(VerdictFromFindings(r));
  return r;
}

TEST(StageKernelEventsTest, AnXidDuringTheStageMakesTheNodeAndTheRunFail) {
  v1::StageRun run = RunWithPassingReport(v1::TWO_NODE);
  MergeKernelEvents(&run, "gpu-a", Events("GPU_XID", v1::FAIL));
  ASSERT_EQ(run.node_reports(0).results_size(), 2);
  EXPECT_EQ(run.node_reports(0).results(1).probe(), "kernel-events");
  EXPECT_EQ(run.node_reports(0).results(1).node(), "gpu-a");
  EXPECT_EQ(run.node_reports(0).verdict(), v1::FAIL);
  EXPECT_EQ(RunVerdict(run), v1::FAIL);
  run.set_verdict(RunVerdict(run));
  EXPECT_TRUE(CheckRecord(run).ok()) << CheckRecord(run);  // a consistent record
}

TEST(StageKernelEventsTest, AQuietKernelAddsNothing) {
  v1::StageRun run = RunWithPassingReport(v1::TWO_NODE);
  v1::ProbeResult quiet;
  quiet.set_probe("kernel-events");
  quiet.set_verdict(v1::PASS);
  MergeKernelEvents(&run, "gpu-a", quiet);
  EXPECT_EQ(run.node_reports(0).results_size(), 1);
  EXPECT_EQ(RunVerdict(run), v1::PASS);
}

TEST(StageKernelEventsTest, ANodeWithoutAReportIsNamedAtRunLevel) {
  v1::StageRun run = RunWithPassingReport(v1::CLUSTER);
  MergeKernelEvents(&run, "gpu-c", Events("GPU_XID", v1::FAIL));
  ASSERT_EQ(run.findings_size(), 1);
  EXPECT_EQ(run.findings(0).code(), "GPU_XID");
  EXPECT_EQ(run.findings(0).device(), "gpu-c 0000:07:00");
  EXPECT_EQ(RunVerdict(run), v1::FAIL);
}

TEST(StageKernelEventsTest, TheFailureStagesOwnLinkFlapsAreNotFaults) {
  v1::StageRun failure = RunWithPassingReport(v1::FAILURE);
  MergeKernelEvents(&failure, "gpu-a", Events("RDMA_LINK_FLAPPED", v1::WARN));
  ASSERT_EQ(failure.node_reports(0).results_size(), 2);  // the events stay as evidence
  const v1::ProbeResult& r = failure.node_reports(0).results(1);
  EXPECT_EQ(r.findings_size(), 0);
  EXPECT_EQ(r.verdict(), v1::PASS);
  EXPECT_NE(r.evidence().at("kernel-events.left_out").find("on purpose"), std::string::npos);
  EXPECT_EQ(RunVerdict(failure), v1::PASS);
  // In any other stage a flap is a finding.
  v1::StageRun two = RunWithPassingReport(v1::TWO_NODE);
  MergeKernelEvents(&two, "gpu-a", Events("RDMA_LINK_FLAPPED", v1::WARN));
  EXPECT_EQ(RunVerdict(two), v1::WARN);
}

}  // namespace
}  // namespace nodeprobe::coordinator

namespace nodeprobe::coordinator {
namespace {

// An agent session whose stream records what it was sent.
std::shared_ptr<AgentSession> Session(v1::Registration reg, int* sent) {
  return std::make_shared<AgentSession>(
      reg.node_name(), "10.0.0.1", reg,
      [sent](const v1::CoordinatorMessage& m) {
        *sent += m.has_task();
        return true;
      },
      [] {});
}

TEST(StageKernelEventsTest, AnAgentThatDoesNotServeTheQuestionIsNotAskedAndItsReportSaysSo) {
  v1::StageRun run = RunWithPassingReport(v1::SINGLE_NODE);
  *run.mutable_started() = StampOf(absl::Now());
  v1::Registration reg;
  reg.set_node_name("gpu-a");
  reg.set_agent_version("0.9.0");  // protocol 1: no list, no kernel_events
  int sent = 0;
  const absl::Time start = absl::Now();
  AddKernelEvents(&run, {Session(reg, &sent)}, absl::Now() + absl::Seconds(10),
                  [](const std::string&) {});
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));  // nothing waited on
  EXPECT_EQ(sent, 0);
  ASSERT_EQ(run.node_reports(0).results_size(), 2);
  const v1::ProbeResult& r = run.node_reports(0).results(1);
  EXPECT_EQ(r.probe(), "kernel-events");
  EXPECT_EQ(r.verdict(), v1::SKIP);
  EXPECT_NE(r.reason().find("gpu-a's agent (nodeprobe 0.9.0, protocol 1) does not serve the "
                            "kernel_events task"),
            std::string::npos)
      << r.reason();
  EXPECT_EQ(run.node_reports(0).verdict(), v1::PASS);
}

TEST(StageKernelEventsTest, AnAgentThatListsTheQuestionIsAsked) {
  v1::StageRun run = RunWithPassingReport(v1::SINGLE_NODE);
  *run.mutable_started() = StampOf(absl::Now());
  v1::Registration reg;
  reg.set_node_name("gpu-a");
  reg.set_protocol(2);
  reg.add_tasks("run_probes");
  reg.add_tasks("kernel_events");
  int sent = 0;
  AddKernelEvents(&run, {Session(reg, &sent)}, absl::Now() + absl::Milliseconds(50),
                  [](const std::string&) {});
  EXPECT_EQ(sent, 1);
  EXPECT_EQ(run.node_reports(0).results_size(), 1);  // no answer came: nothing added
}

}  // namespace
}  // namespace nodeprobe::coordinator
