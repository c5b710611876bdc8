// JUnit XML read back with libxml2's strict parser (no recovery, no
// network): one testcase per result, the counts CI systems show, and what
// a failing case carries.
#include "cli/junit_output.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "probes/framework/result_util.h"
#include "tests/testing/xml_query.h"

namespace nodeprobe::cli {
namespace {

v1::ProbeResult Result(const std::string& probe, v1::Verdict v) {
  v1::ProbeResult r;
  r.set_probe(probe);
  r.set_verdict(v);
  r.mutable_started()->set_seconds(1764660000);
  r.mutable_finished()->set_seconds(1764660002);
  return r;
}

v1::StageRun SampleRun() {
  v1::StageRun run;
  run.set_run_id("r-7");
  run.set_stage(v1::TWO_NODE);
  run.set_verdict(v1::FAIL);
  v1::StageReport* a = run.add_node_reports();
  a->set_node("gpu01");
  a->set_stage(v1::SINGLE_NODE);
  *a->add_results() = Result("inventory", v1::PASS);
  v1::ProbeResult pcie = Result("pcie", v1::FAIL);
  // Markup in a message is text, not structure.
  AddFinding(&pcie, "PCIE_LINK_WIDTH_DEGRADED", v1::FAIL, "0000:82:00.0",
             "x8 < x16 & \"trained short\" <really>");
  *a->add_results() = pcie;
  v1::ProbeResult gpu = Result("gpu", v1::SKIP);
  gpu.set_reason("no NVIDIA driver");
  *a->add_results() = gpu;
  v1::StageReport* b = run.add_node_reports();
  b->set_node("gpu02");
  b->set_stage(v1::SINGLE_NODE);
  v1::ProbeResult rdma = Result("rdma-devices", v1::WARN);
  AddFinding(&rdma, "RDMA_ERROR_COUNTERS_NONZERO", v1::WARN, "mlx5_0:1", "symbol_error 3");
  *b->add_results() = rdma;
  v1::ProbeResult mtu = Result("mtu", v1::ERROR);
  AddFinding(&mtu, "PROBE_COULD_NOT_RUN", v1::ERROR, "", "netlink refused");
  *b->add_results() = mtu;
  v1::PairResult* p = run.add_pairs();
  p->set_from_node("gpu01");
  p->set_to_node("gpu02");
  p->set_rail("eth0");
  p->mutable_result()->set_verdict(v1::FAIL);
  p->mutable_result()->mutable_transfer()->set_op(v1::STREAM_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(0.1);
  AddFinding(p->mutable_result(), "TRANSFER_ASYMMETRIC", v1::FAIL, "eth0", "0.10 vs 9.40 Gb/s");
  v1::Finding* lost = run.add_findings();
  lost->set_code("AGENT_LOST");
  lost->set_severity(v1::ERROR);
  lost->set_device("gpu03");
  lost->set_message("gone");
  return run;
}


TEST(JunitRunTest, OneTestcasePerResultWithTheCountsCiSystemsShow) {
  const std::string xml = JunitRun(SampleRun());
  testing::XmlQuery d = testing::XmlQuery::Xml(xml);
  ASSERT_TRUE(d.ok()) << xml;
  // 5 probe results + 1 pair + the run's own findings.
  EXPECT_EQ(d.Number("count(//testcase)"), 7) << xml;
  EXPECT_EQ(d.Number("number(/testsuites/@tests)"), 7);
  EXPECT_EQ(d.Number("number(/testsuites/@failures)"), 2);  // pcie, the pair
  EXPECT_EQ(d.Number("number(/testsuites/@errors)"), 2);    // mtu, the run
  EXPECT_EQ(d.Number("number(/testsuites/@skipped)"), 1);   // gpu
  EXPECT_EQ(d.Number("count(/testsuites/testsuite)"), 4);   // gpu01, gpu02, pairs, run
  for (int i = 1; i <= 4; ++i) {
    const std::string suite = "/testsuites/testsuite[" + std::to_string(i) + "]";
    EXPECT_EQ(d.Number("number(" + suite + "/@tests)"), d.Number("count(" + suite + "/testcase)"));
  }
  EXPECT_EQ(d.String("//testcase[@name='pcie']/@classname"), "nodeprobe.gpu01");
  EXPECT_EQ(d.String("//testcase[@name='pcie']/@time"), "2.000");
  EXPECT_EQ(d.String("//testcase[@name='pcie']/failure/@type"), "PCIE_LINK_WIDTH_DEGRADED");
  EXPECT_EQ(d.String("//testcase[@name='pcie']/failure/@message"),
            "PCIE_LINK_WIDTH_DEGRADED: x8 < x16 & \"trained short\" <really>");
  EXPECT_NE(d.String("//testcase[@name='pcie']/failure").find("fix: reseat the card or riser"),
            std::string::npos);
  EXPECT_EQ(d.String("//testcase[@name='gpu']/skipped/@message"), "no NVIDIA driver");
  EXPECT_EQ(d.String("//testcase[@name='mtu']/error/@type"), "PROBE_COULD_NOT_RUN");
  // WARN passes, with its findings where a reader looks.
  EXPECT_EQ(d.Number("count(//testcase[@name='rdma-devices']/*[self::failure or self::error])"),
            0);
  EXPECT_NE(d.String("//testcase[@name='rdma-devices']/system-out")
                .find("WARN RDMA_ERROR_COUNTERS_NONZERO [mlx5_0:1]: symbol_error 3"),
            std::string::npos);
  EXPECT_EQ(d.String("//testsuite[@name='pairs']/testcase/@name"),
            "gpu01 -> gpu02 [eth0] transfer");
  EXPECT_EQ(d.String("//testsuite[@name='pairs']/testcase/failure/@type"), "TRANSFER_ASYMMETRIC");
  EXPECT_EQ(d.String("//testsuite[@name='run']/testcase/error/@type"), "AGENT_LOST");
}

TEST(JunitCampaignTest, EveryRunsSuitesNamedByTheRun) {
  v1::StageRun a = SampleRun();
  v1::StageRun b = SampleRun();
  b.set_run_id("r-8");
  testing::XmlQuery d = testing::XmlQuery::Xml(JunitCampaign({a, b}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.Number("count(//testcase)"), 14);
  EXPECT_EQ(d.Number("number(/testsuites/@tests)"), 14);
  EXPECT_EQ(d.String("/testsuites/@name"), "nodeprobe runs r-7,r-8");
  EXPECT_EQ(d.String("/testsuites/testsuite[1]/@name"), "r-7 gpu01 single-node");
  EXPECT_EQ(d.Number("count(//testsuite[starts-with(@name, 'r-8 ')])"), 4);
}

TEST(JunitReportTest, ALocalStageIsOneSuite) {
  v1::StageReport r;
  r.set_node("gpu01");
  r.set_stage(v1::SINGLE_NODE);
  *r.add_results() = Result("pcie", v1::PASS);
  *r.add_results() = Result("gpu", v1::SKIP);
  testing::XmlQuery d = testing::XmlQuery::Xml(JunitReport(r));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.Number("count(/testsuites/testsuite)"), 1);
  EXPECT_EQ(d.String("/testsuites/testsuite/@name"), "gpu01 single-node");
  EXPECT_EQ(d.Number("count(//testcase)"), 2);
  EXPECT_EQ(d.Number("number(/testsuites/@failures)"), 0);
  EXPECT_EQ(d.Number("number(/testsuites/@skipped)"), 1);
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// Every byte value, alone and inside UTF-8 text, in a message, a device,
// a reason and a node name: the JUnit file always parses with a strict XML
// parser, and what was text stays readable.
TEST(JunitWellFormedTest, EveryByteValueGivesWellFormedXml) {
  for (int b = 0; b < 256; ++b) {
    const std::string odd(1, static_cast<char>(b));
    v1::StageReport report;
    report.set_node("gpu" + odd);
    report.set_stage(v1::SINGLE_NODE);
    v1::ProbeResult r;
    r.set_probe("pcie");
    r.set_verdict(v1::FAIL);
    AddFinding(&r, "PCIE_LINK_WIDTH_DEGRADED", v1::FAIL, "dev" + odd,
               "before " + odd + " after \xe2\x80\xae reversed \xef\xbf\xbe");
    *report.add_results() = r;
    v1::ProbeResult s;
    s.set_probe("gpu");
    s.set_verdict(v1::SKIP);
    s.set_reason("reason" + odd);
    *report.add_results() = s;
    const std::string xml = JunitReport(report);
    testing::XmlQuery q = testing::XmlQuery::Xml(xml);
    ASSERT_TRUE(q.ok()) << "byte " << b << ":\n" << xml;
    EXPECT_EQ(q.Number("count(//testcase)"), 2) << b;
    const std::string message = q.String("//failure/@message");
    EXPECT_NE(message.find("before "), std::string::npos) << b;
    EXPECT_NE(message.find(" after "), std::string::npos) << b;
    EXPECT_EQ(message.find("\xe2\x80\xae"), std::string::npos) << "U+202E left raw";
  }
}

}  // namespace
}  // namespace nodeprobe::cli
