// The HTML acceptance record read back with libxml2's HTML parser: failing
// items first, every section with its verdict, text escaped, nothing
// fetched from anywhere; and, where Debian's chromium is installed, the
// page as a browser renders it (no console error, no network request, the
// first FAIL above the fold).
#include "cli/html_report.h"

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/run_rendering.h"
#include "gtest/gtest.h"
#include "probes/framework/coverage.h"
#include "probes/framework/result_util.h"
#include "re2/re2.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/headless_browser.h"
#include "tests/testing/xml_query.h"

namespace nodeprobe::cli {
namespace {

v1::StageRun AcceptanceRun() {
  v1::StageRun run;
  run.set_run_id("r-42");
  run.set_stage(v1::TWO_NODE);
  run.set_verdict(v1::FAIL);
  run.set_state("done");
  run.add_nodes("gpu01");
  run.add_nodes("gpu02");
  run.set_operator_identity("platform-operator");
  run.mutable_profile()->set_source("fleet.yaml");
  run.mutable_profile()->set_yaml("transfer:\n  tcp_stream_min_gbps: 90\n");
  for (const char* node : {"gpu01", "gpu02"}) {
    v1::StageReport* r = run.add_node_reports();
    r->set_node(node);
    r->set_stage(v1::SINGLE_NODE);
    v1::ProbeResult* inv = r->add_results();
    inv->set_probe("inventory");
    inv->set_verdict(v1::PASS);
    v1::Component* d = inv->mutable_inventory()->add_components();
    d->set_name("nvidia_driver");
    d->set_present(true);
    d->set_version(std::string(node) == "gpu01" ? "550.54.15" : "535.161.08");
    if (std::string(node) == "gpu01") {
      v1::ProbeResult* loc = r->add_results();
      loc->set_probe("locality");
      loc->set_verdict(v1::WARN);
      v1::Topology* t = loc->mutable_topology();
      t->set_source("live");
      for (const char* g : {"GPU0", "GPU1"}) t->add_gpus()->set_label(g);
      for (const char* n : {"NIC0", "NIC1"}) {
        v1::TopologyDevice* nic = t->add_nics();
        nic->set_label(n);
        nic->add_rdma_devices(std::string(n) == "NIC0" ? "mlx5_0" : "mlx5_1");
      }
      for (const std::vector<const char*>& row :
           std::vector<std::vector<const char*>>{{"PIX", "SYS"}, {"SYS", "NODE"}}) {
        v1::TopologyRow* m = t->add_matrix();
        for (const char* path : row) m->add_paths(path);
      }
      v1::GpuRail* r0 = t->add_rails();
      r0->set_gpu("GPU0");
      r0->add_nics("NIC0");
      r0->set_path("PIX");
      r0->set_gdr_by_default(true);
      v1::GpuRail* r1 = t->add_rails();
      r1->set_gpu("GPU1");
      r1->add_nics("NIC1");
      r1->set_path("NODE");
    }
    v1::ProbeResult* rdma = r->add_results();
    rdma->set_probe("rdma-devices");
    rdma->set_verdict(v1::WARN);
    v1::Finding* f = AddFinding(rdma, "RDMA_ERROR_COUNTERS_NONZERO", v1::WARN, "mlx5_0:1",
                                "symbol_error 3 <script>alert(1)</script>");
    f->set_exception_reason("cable swap (exception in fleet.yaml)");
    f->set_exception_owner("fabric-team");
    f->set_exception_expires("2027-01-31");
  }
  v1::PairResult* p = run.add_pairs();
  p->set_from_node("gpu01");
  p->set_to_node("gpu02");
  p->set_rail("eth0");
  p->mutable_result()->set_verdict(v1::FAIL);
  p->mutable_result()->mutable_transfer()->set_op(v1::STREAM_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(41.2);
  p->mutable_result()->mutable_transfer()->set_expected(90);
  p->mutable_result()->mutable_transfer()->set_expected_source("profile");
  AddFinding(p->mutable_result(), "TRANSFER_BELOW_EXPECTED", v1::FAIL, "eth0",
             "41.2 Gb/s is below the profile's 90 Gb/s");
  v1::ProbeResult* c = run.add_collectives();
  c->set_probe("nccl");
  c->set_verdict(v1::PASS);
  c->mutable_collective()->set_nranks(16);
  for (uint64_t size : {1024ull, 1ull << 20, 1ull << 30}) {
    v1::CollectiveRow* row = c->mutable_collective()->add_rows();
    row->set_collective("all_reduce");
    row->set_size(size);
    row->set_busbw_gbps(size == 1024 ? 0.5 : size == (1u << 20) ? 40 : 180);
  }
  return run;
}


TEST(HtmlRunTest, FailingItemsFirstEverySectionWithItsVerdictAndNothingFetched) {
  const std::string html = HtmlRun(AcceptanceRun());
  EXPECT_TRUE(absl::StartsWith(html, "<!DOCTYPE html>")) << html.substr(0, 80);
  // Self-contained: no resource from anywhere.
  EXPECT_FALSE(absl::StrContains(html, "http://")) << html;
  EXPECT_FALSE(absl::StrContains(html, "https://"));
  EXPECT_FALSE(absl::StrContains(html, " src="));
  EXPECT_FALSE(absl::StrContains(html, "<link"));
  // A finding's text is text, never markup.
  EXPECT_FALSE(absl::StrContains(html, "<script>alert(1)</script>"));
  EXPECT_TRUE(absl::StrContains(html, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  testing::XmlQuery d = testing::XmlQuery::Html(html);
  ASSERT_TRUE(d.ok());
  // The production gate first, then what needs attention, whose first row
  // is the FAIL.
  EXPECT_EQ(d.String("(//section)[1]/@id"), "gate");
  EXPECT_EQ(d.String("(//section)[1]/h2/span"), "incomplete");
  EXPECT_EQ(d.String("(//section[@id='gate']//tr[@data-item='transfers'])/td[2]"), "not met");
  EXPECT_EQ(d.String("(//section[@id='gate']//tr[@data-item='congestion'])/td[2]"), "not run");
  // Its evidence links into the record's own sections.
  const std::string link = d.String("(//section[@id='gate']//tr[@data-item='transfers'])//a/@href");
  EXPECT_EQ(link, "#run-r-42-pairs");
  EXPECT_EQ(d.Number("count(//section[@id='run-r-42-pairs'])"), 1);
  EXPECT_EQ(d.String("(//section)[2]/@id"), "attention");
  EXPECT_EQ(d.String("(//section)[2]/h2/span"), "FAIL");
  EXPECT_EQ(d.String("(//section[@id='attention']//tbody/tr)[1]/td[4]"),
            "TRANSFER_BELOW_EXPECTED");
  EXPECT_EQ(d.Number("count(//section[@id='attention']//tbody/tr)"), 3);
  // Right under the verdict: how much of the run was judged.
  EXPECT_TRUE(absl::StartsWith(d.String("//p[@class='coverage']"),
                               absl::StrCat(CoverageOf(AcceptanceRun()).judged(), " of ",
                                            CoverageOf(AcceptanceRun()).total(),
                                            " results judged")))
      << d.String("//p[@class='coverage']");
  EXPECT_EQ(d.Number("count(//h1/following-sibling::*[1][self::p[@class='coverage']])"), 1);
  // Summary: who, the profile and its hash.
  EXPECT_TRUE(absl::StrContains(d.String("//table[@class='meta']"), "platform-operator"));
  EXPECT_TRUE(absl::StrContains(
      d.String("//table[@class='meta']"),
      absl::StrCat("fleet.yaml, sha256 ", Sha256Hex("transfer:\n  tcp_stream_min_gbps: 90\n"))));
  // Each section says its verdict.
  EXPECT_EQ(d.Number("count(//section)"), d.Number("count(//section/h2/span[@class])"));
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Version matrix')]]/h2/span"), "WARN");
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Nodes')]]/h2/span"), "WARN");
  // A tie of versions: one node is off; the topology marks the three paths
  // beyond PXB.
  EXPECT_EQ(d.Number("count(//section[h2[starts-with(., 'Version matrix')]]//td[@class='drift'])"),
            1);
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Topology')]]/h2/span"), "WARN");
  EXPECT_EQ(d.Number("count(//section[h2[starts-with(., 'Topology')]]//td[@class='drift'])"), 3);
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Topology')]]//tbody/tr[2]/td[4]"),
            "NIC1 (NODE)");
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Topology')]]//thead//th[2]"), "NIC0 mlx5_0");
  EXPECT_EQ(d.String("//section[h2[starts-with(., 'Exceptions')]]//tbody/tr[1]/td[4]"),
            "fabric-team");
  // The collective's curve, drawn inline.
  EXPECT_EQ(d.Number("count(//svg//polyline)"), 1);
  EXPECT_EQ(d.Number("count(//script)"), 1);
}

TEST(HtmlRunTest, PcieCablingAndMtuSectionsMarkWhatFallsShort) {
  v1::StageRun run;
  run.set_run_id("r-rec");
  run.set_stage(v1::TWO_NODE);
  v1::StageReport* r = run.add_node_reports();
  r->set_node("gpu01");
  v1::ProbeResult* pcie = r->add_results();
  pcie->set_probe("pcie");
  pcie->set_verdict(v1::FAIL);
  for (const auto& [dev, width] : std::vector<std::pair<std::string, double>>{
           {"0000:19:00.0", 16}, {"0000:3b:00.0", 8}}) {
    const std::map<std::string, std::string> labels = {{"device", dev}, {"role", "gpu"}};
    AddMeasurement(pcie, "pcie_link_speed", 32, "GT/s", labels);
    AddMeasurement(pcie, "pcie_link_width", width, "lanes", labels);
    AddMeasurement(pcie, "pcie_expected_speed", 32, "GT/s", labels);
    AddMeasurement(pcie, "pcie_expected_width", 16, "lanes", labels);
  }
  v1::ProbeResult* cab = r->add_results();
  cab->set_probe("cabling");
  cab->set_verdict(v1::FAIL);
  for (const auto& [iface, sw] : std::vector<std::pair<std::string, std::string>>{
           {"ens1f0np0", "leaf-rail-0-a"}, {"ens2f0np0", "leaf-rail-0-b"}}) {
    v1::CablingLink* l = cab->mutable_cabling()->add_links();
    l->set_interface(iface);
    l->set_neighbor_system(sw);
    l->set_neighbor_port_descr("Ethernet1/7");
    l->set_expected(iface == "ens1f0np0" ? "leaf-rail-0-*" : "leaf-rail-1-*");
  }
  AddFinding(cab, "CABLING_RAIL_MISMATCH", v1::FAIL, "ens2f0np0", "cabled to leaf-rail-0-b");
  v1::PairResult* p = run.add_pairs();
  p->set_from_node("gpu01");
  p->set_to_node("gpu02");
  p->set_rail("mlx5_0:1");
  p->mutable_result()->set_verdict(v1::FAIL);
  v1::PathMtu* m = p->mutable_result()->mutable_mtu()->add_paths();
  m->set_direction("here -> peer");
  m->set_path_mtu(1500);
  m->set_iface_mtu(9000);
  m->set_blackhole(true);

  testing::XmlQuery d = testing::XmlQuery::Html(HtmlRun(run));
  ASSERT_TRUE(d.ok());
  const std::string pcie_sec = "//section[h2[starts-with(., 'PCIe links')]]";
  EXPECT_EQ(d.String(pcie_sec + "/h2/span"), "FAIL");
  EXPECT_EQ(d.Number("count(" + pcie_sec + "//tbody/tr)"), 2);
  EXPECT_EQ(d.String(pcie_sec + "//tr[td[@class='drift']]/td[2]"), "0000:3b:00.0");
  EXPECT_EQ(d.String(pcie_sec + "//td[@class='drift']"), "32 GT/s x16");
  const std::string cab_sec = "//section[h2[starts-with(., 'Cabling')]]";
  EXPECT_EQ(d.String(cab_sec + "/h2/span"), "FAIL");
  EXPECT_EQ(d.Number("count(" + cab_sec + "//td[@class='drift'])"), 1);
  EXPECT_EQ(d.String(cab_sec + "//tr[td[@class='drift']]/td[4]"), "leaf-rail-0-b");
  const std::string mtu_sec = "//section[h2[starts-with(., 'MTU from the workload path')]]";
  EXPECT_EQ(d.String(mtu_sec + "//tbody/tr/td[5]"), "1500");
  EXPECT_EQ(d.String(mtu_sec + "//td[@class='drift']"), "a black hole (no ICMP)");
}

TEST(HtmlCampaignTest, AttentionAcrossTheRunsFirstThenEachRun) {
  v1::StageRun single = AcceptanceRun();
  single.set_run_id("r-41");
  single.set_stage(v1::SINGLE_NODE);
  single.set_verdict(v1::WARN);
  single.clear_pairs();
  single.clear_collectives();
  const std::string html = HtmlCampaign({single, AcceptanceRun()});
  testing::XmlQuery d = testing::XmlQuery::Html(html);
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d.String("/html/body/h1/span"), "FAIL");  // the worst run's
  EXPECT_EQ(d.Number("count(/html/body/table[1]/tbody/tr)"), 2);
  // The campaign's gate first: each item from the runs that supplied it.
  EXPECT_EQ(d.String("(//section)[1]/@id"), "gate");
  EXPECT_EQ(d.Number("count(//section[@id='gate']//tr[@data-item='versions']//a)"), 2);
  EXPECT_EQ(d.String("(//section[@id='gate']//tr[@data-item='transfers']//a)[1]/@href"),
            "#run-r-42-pairs");
  EXPECT_EQ(d.Number("count(//section[@id='run-r-41-versions'])"), 1);
  EXPECT_EQ(d.String("(//section)[2]/@id"), "attention");
  // The FAIL of r-42 leads, though r-41 came first.
  EXPECT_EQ(d.String("(//section[@id='attention']//tbody/tr)[1]/td[2]"),
            "r-42: gpu01 -> gpu02 [eth0]");
  EXPECT_EQ(d.Number("count(//section[@id='attention']//tbody/tr)"), 5);
  EXPECT_EQ(d.Number("count(//article)"), 2);
  EXPECT_EQ(d.String("(//article)[1]/h2/span"), "WARN");
}

// A stage's PASS over an incomplete gate is not an acceptance: the title
// of every rendering carries both, before anything else.
TEST(RecordTitleTest, APassOverAnIncompleteGateSaysBothInTheTitle) {
  v1::StageRun run = AcceptanceRun();
  run.set_verdict(v1::PASS);
  const std::string html = HtmlRun(run);
  const std::string md = MarkdownRun(run);
  const std::string text = RenderRun(run, false);
  EXPECT_TRUE(RE2::PartialMatch(html, "<title>nodeprobe r-42: PASS, production gate incomplete"))
      << html.substr(0, 400);
  EXPECT_TRUE(
      RE2::PartialMatch(html,
                        "<h1>Acceptance record: run r-42 <span class=\"v PASS\">PASS</span><span "
                        "class=\"v FAIL\"> production gate incomplete</span>"))
      << html.substr(0, 4000);
  EXPECT_EQ(md.rfind("# nodeprobe run r-42: PASS, production gate incomplete: ", 0), 0u) << md;
  EXPECT_EQ(text.rfind("run r-42: two-node on gpu01, gpu02: PASS, production gate incomplete: ", 0),
            0u)
      << text;
}

TEST(Sha256HexTest, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

TEST(HtmlRunTest, ChromiumRendersItWithoutErrorsOrRequestsAndTheFailAboveTheFold) {
  if (!testing::HaveChromium()) {
    GTEST_SKIP() << "chromium is not installed (Debian package chromium)";
  }
  testing::TempDir dir;
  std::string html = HtmlRun(AcceptanceRun());
  // The test's own probe, appended to a copy: where the gate and the first
  // FAIL row sit, and whether the page's sorter runs (a click sorts by
  // verdict).
  const std::string probe = R"(<script>
window.addEventListener('load', function () {
  var fold = window.innerHeight;
  var gate = document.querySelector('#gate .gate-headline').getBoundingClientRect().bottom <= fold;
  var row = document.querySelector('#attention tbody tr');
  var above = row.getBoundingClientRect().bottom <= fold;
  var th = document.querySelector('#attention th');
  th.click();
  document.body.setAttribute('data-probe', 'gate=' + gate + ';above=' + above + ';sorted=' +
      th.classList.contains('sorted-asc'));
});
</script>)";
  std::ofstream(dir.path() + "/record.html") << html;
  std::ofstream(dir.path() + "/probe.html") << html << probe;
  absl::StatusOr<testing::RenderedPage> page =
      testing::RenderInChromium(dir.path() + "/probe.html", dir.path());
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_TRUE(absl::StrContains(page->dom, "data-probe=\"gate=true;above=true;sorted=true\""))
      << page->dom.substr(0, 2000);
  // No console message at all (an error in our script would be one).
  EXPECT_FALSE(absl::StrContains(page->log, "CONSOLE")) << page->log;
  EXPECT_FALSE(absl::StrContains(page->log, "Uncaught")) << page->log;
  // The browser's network log: no http(s) URL was requested but the
  // browser's own housekeeping (clock, updates, accounts), which it sends
  // for any page, even with background networking off.
  ASSERT_FALSE(page->net_log.empty());
  re2::StringPiece in(page->net_log);
  std::string url;
  while (RE2::FindAndConsume(&in, R"re("url":"(https?://[^"]*)")re", &url)) {
    const bool browsers_own = absl::StartsWith(url, "http://clients2.google.com/time/") ||
                              absl::StartsWith(url, "https://clients2.google.com/time/") ||
                              absl::StrContains(url, "update.googleapis.com/service/update2/") ||
                              absl::StartsWith(url, "https://accounts.google.com/ListAccounts");
    EXPECT_TRUE(browsers_own) << "the page asked for " << url;
  }
  // A screenshot of the record as printed: not blank.
  const std::string png = dir.path() + "/record.png";
  ASSERT_TRUE(testing::ScreenshotInChromium(dir.path() + "/record.html", png, dir.path()).ok());
  EXPECT_GT(Slurp(png).size(), 20000u) << "the screenshot is (nearly) blank";
  if (const char* keep = std::getenv("NODEPROBE_KEEP_HTML")) {
    std::system(absl::StrCat("cp ", png, " ", dir.path(), "/record.html ", keep).c_str());
  }
}

}  // namespace
}  // namespace nodeprobe::cli

namespace nodeprobe::cli {
namespace {

// Text from a record (a message quoting a log, a stored name) cannot act
// on the reader: bidi overrides and controls are written out in HTML and
// Markdown, and Markdown's table stays a table.
TEST(RecordTextTest, ControlsBidiAndMarkupAreEscapedInHtmlAndMarkdown) {
  v1::StageRun run;
  run.set_run_id("r-1");
  run.set_stage(v1::TWO_NODE);
  run.set_verdict(v1::FAIL);
  run.add_nodes("gpu01");
  v1::StageReport* rep = run.add_node_reports();
  rep->set_node("gpu01");
  v1::ProbeResult* p = rep->add_results();
  p->set_probe("nccl-log");
  p->set_verdict(v1::FAIL);
  v1::Finding* f = p->add_findings();
  f->set_code("NCCL_JOB_ERROR");
  f->set_severity(v1::FAIL);
  f->set_device("a|b");
  f->set_message("evil \xe2\x80\xae txt.exe \x1b[2J <script>x</script> | cell");
  v1::Finding* g = run.add_findings();
  *g = *f;
  const std::string html = HtmlRun(run);
  EXPECT_EQ(html.find("\xe2\x80\xae"), std::string::npos);
  EXPECT_EQ(html.find("\x1b"), std::string::npos);
  EXPECT_NE(html.find("\\u{202E}"), std::string::npos);
  EXPECT_EQ(html.find("<script>x"), std::string::npos);
  const std::string md = MarkdownRun(run);
  EXPECT_EQ(md.find("\xe2\x80\xae"), std::string::npos);
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_NE(md.find("a\\|b"), std::string::npos) << md;
  const std::string table = RenderRun(run, false);
  EXPECT_EQ(table.find("\x1b[2J"), std::string::npos) << table;
}

}  // namespace
}  // namespace nodeprobe::cli
