// `nodeprobe evidence --from-json`: the bundle unpacks with tar, its
// manifest verifies with `sha256sum -c`, its signature with `openssl dgst`,
// and bad input is one line with exit 2.
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::CommandResult;

CommandResult Nodeprobe(const std::vector<std::string>& args) {
  return testing::RunBinary(NODEPROBE_BINARY, args);
}

int Shell(const std::string& cmd) { return std::system(cmd.c_str()); }

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

v1::StageRun MakeRun() {
  v1::StageRun run;
  run.set_run_id("r-9");
  run.set_stage(v1::TWO_NODE);
  run.set_verdict(v1::PASS);
  run.set_state("done");
  run.add_nodes("gpu01");
  run.mutable_profile()->set_source("fleet.yaml");
  run.mutable_profile()->set_yaml("mtu:\n  expected: 9000\n");
  v1::StageReport* r = run.add_node_reports();
  r->set_node("gpu01");
  r->set_verdict(v1::PASS);
  v1::ProbeResult* p = r->add_results();
  p->set_probe("pcie");
  p->set_verdict(v1::PASS);
  return run;
}

std::string Save(const v1::StageRun& run, const std::string& path) {
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(run, &json).ok());
  std::ofstream(path) << json;
  return path;
}

// A stored run as `report --format json` writes it.
std::string SavedRun(const std::string& dir) { return Save(MakeRun(), dir + "/run.json"); }

TEST(EvidenceTest, TheBundleUnpacksAndItsManifestAndSignatureVerify) {
  testing::TempDir dir;
  const std::string d = dir.path();
  ASSERT_EQ(Shell(absl::StrCat("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out ",
                               d, "/key.pem 2>/dev/null && openssl pkey -in ", d,
                               "/key.pem -pubout -out ", d, "/key.pub")),
            0);
  CommandResult r = Nodeprobe({"evidence", "--from-json", SavedRun(d), "--out",
                               d + "/bundle.tar.gz", "--sign-key", d + "/key.pem"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::ifstream(d + "/bundle.tar.gz.tmp").good());  // renamed into place
  ASSERT_EQ(Shell(absl::StrCat("tar -xzf ", d, "/bundle.tar.gz -C ", d)), 0);
  const std::string b = d + "/nodeprobe-r-9";
  for (const char* f : {"run.json", "record.html", "junit.xml", "profile.yaml", "MANIFEST.sha256",
                        "MANIFEST.sha256.sig"}) {
    EXPECT_TRUE(std::ifstream(b + "/" + f).good()) << f;
  }
  EXPECT_EQ(Slurp(b + "/profile.yaml"), "mtu:\n  expected: 9000\n");
  EXPECT_EQ(Shell(absl::StrCat("cd ", b, " && sha256sum -c --quiet MANIFEST.sha256")), 0);
  EXPECT_EQ(Shell(absl::StrCat("cd ", b, " && openssl dgst -sha256 -verify ", d,
                               "/key.pub -signature MANIFEST.sha256.sig MANIFEST.sha256 "
                               "> /dev/null")),
            0);
  // Tampering is caught by both.
  std::ofstream(b + "/record.html", std::ios::app) << "<!-- changed -->";
  EXPECT_NE(Shell(absl::StrCat("cd ", b, " && sha256sum -c --quiet MANIFEST.sha256 2>/dev/null "
                               ">/dev/null")),
            0);
  std::ofstream(b + "/MANIFEST.sha256", std::ios::app) << "0  extra\n";
  EXPECT_NE(Shell(absl::StrCat("cd ", b, " && openssl dgst -sha256 -verify ", d,
                               "/key.pub -signature MANIFEST.sha256.sig MANIFEST.sha256 "
                               "> /dev/null 2>&1")),
            0);
}

// A run that has not ended (a coordinator that died with a full store
// leaves it "running") is not bundled as if complete.
TEST(EvidenceTest, ARunThatHasNotEndedIsNotBundled) {
  testing::TempDir dir;
  const std::string d = dir.path();
  v1::StageRun run = MakeRun();
  run.set_state("running");
  CommandResult r =
      Nodeprobe({"evidence", "--from-json", Save(run, d + "/running.json"), "--out", d + "/b.tgz"});
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.err, "has not ended")) << r.err;
  EXPECT_EQ(testing::LineCount(r.err), 1) << r.err;
  EXPECT_FALSE(std::ifstream(d + "/b.tgz").good());
}

// A coverage forged into the stored run does not reach the bundle's
// run.json: what is derived is derived again before any file is written.
TEST(EvidenceTest, ForgedCoverageIsRecomputedBeforeWriting) {
  testing::TempDir dir;
  const std::string d = dir.path();
  v1::StageRun run = MakeRun();
  run.mutable_coverage()->set_judged(999);
  run.mutable_node_reports(0)->mutable_coverage()->set_judged(777);
  CommandResult r =
      Nodeprobe({"evidence", "--from-json", Save(run, d + "/forged.json"), "--out", d + "/b.tgz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(Shell(absl::StrCat("tar -xzf ", d, "/b.tgz -C ", d)), 0);
  v1::StageRun bundled;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(Slurp(d + "/nodeprobe-r-9/run.json"), &bundled)
          .ok());
  EXPECT_EQ(bundled.coverage().judged(), 1u) << bundled.coverage().DebugString();
  EXPECT_EQ(bundled.node_reports(0).coverage().judged(), 1u);
}

TEST(EvidenceTest, BadInputIsOneLineAndExitTwo) {
  testing::TempDir dir;
  const std::string d = dir.path();
  testing::WriteFile(d + "/junk.json", "{\"not_a_field\": 1}");
  testing::WriteFile(d + "/notakey.pem", "hello\n");
  struct Case {
    std::vector<std::string> args;
    const char* says;
  };
  const std::vector<Case> cases = {
      {{"evidence", "--out", d + "/b.tar.gz"}, "needs --run ID"},
      {{"evidence", "--from-json", d + "/missing.json", "--out", d + "/b.tar.gz"},
       "not a readable file"},
      {{"evidence", "--from-json", d + "/junk.json", "--out", d + "/b.tar.gz"}, "not a run"},
      {{"evidence", "--from-json", SavedRun(d), "--out", "/proc/nope/b.tar.gz"}, "--out"},
      {{"evidence", "--from-json", SavedRun(d), "--out", d + "/b.tar.gz", "--sign-key",
        d + "/notakey.pem"},
       "not a PEM private key"},
  };
  for (const Case& c : cases) {
    CommandResult r = Nodeprobe(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_EQ(testing::LineCount(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, c.says)) << c.says << ": " << r.err;
  }
  EXPECT_FALSE(std::ifstream(d + "/b.tar.gz").good());  // nothing half-written left behind
}

// Records are recomputed, not trusted: a FAIL run edited to PASS, an empty
// document, one too large or too deep, and a run id that would climb out
// of the bundle's directory are refused.
TEST(EvidenceTest, ForgedEmptyHugeAndTraversingRecordsAreRefused) {
  testing::TempDir dir;
  const std::string d = dir.path();
  v1::StageRun forged = MakeRun();
  v1::ProbeResult* pcie = forged.mutable_node_reports(0)->mutable_results(0);
  v1::Finding* f = pcie->add_findings();
  f->set_code("PCIE_LINK_WIDTH_DEGRADED");
  f->set_severity(v1::FAIL);
  f->set_message("x8 of x16");
  // Verdicts left at PASS where the finding says FAIL: an edited record.
  v1::StageRun renamed = MakeRun();
  renamed.set_run_id("../../../../tmp/evil");
  v1::StageRun bad_node = MakeRun();
  bad_node.set_nodes(0, "gpu01\nrun x: PASS");
  testing::WriteFile(d + "/empty.json", "{}");
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += "{\"node_reports\":[";
  testing::WriteFile(d + "/deep.json", deep);
  {
    std::ofstream huge(d + "/huge.json");
    huge << "{\"run_id\":\"";
    const std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 70; ++i) huge << chunk;
    huge << "\"}";
  }
  struct Case {
    std::string json;
    const char* says;
  };
  for (const Case& c : std::vector<Case>{
           {Save(forged, d + "/forged.json"), "stored as PASS but its findings give FAIL"},
           {d + "/empty.json", "no run_id or stage"},
           {d + "/deep.json", "nested deeper than any run"},
           {d + "/huge.json", "larger than any run"},
           {Save(renamed, d + "/renamed.json"), "run id '../../../../tmp/evil' is not a valid name"},
           {Save(bad_node, d + "/bad_node.json"), "node name 'gpu01\\nrun x: PASS' is not a valid name"}}) {
    CommandResult r = Nodeprobe({"evidence", "--from-json", c.json, "--out", d + "/b.tar.gz"});
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.err;
    EXPECT_EQ(testing::LineCount(r.err), 1) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, c.says)) << c.says << ": " << r.err;
    EXPECT_FALSE(std::ifstream(d + "/b.tar.gz").good()) << c.says;
  }
}

// Output files are created, not clobbered: a device node (made here, never
// in /dev) and a FIFO are refused, an existing file is kept without
// --force, "-" is standard output, and nothing is left behind.
TEST(EvidenceTest, OutputFilesAreCreatedNotClobbered) {
  testing::TempDir dir;
  const std::string d = dir.path();
  const std::string run = SavedRun(d);
  ASSERT_EQ(Shell(absl::StrCat("mknod ", d, "/full c 1 7 && mkfifo ", d, "/fifo")), 0);
  for (const char* target : {"/full", "/fifo"}) {
    CommandResult r = Nodeprobe({"evidence", "--from-json", run, "--out", d + target});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, "not a file")) << r.err;
  }
  struct stat st;
  ASSERT_EQ(stat((d + "/full").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));  // the device is still a device
  testing::WriteFile(d + "/mine.tar.gz", "keep me");
  CommandResult kept = Nodeprobe({"evidence", "--from-json", run, "--out", d + "/mine.tar.gz"});
  EXPECT_EQ(kept.exit_code, 2);
  EXPECT_TRUE(absl::StrContains(kept.err, "exists: pass --force")) << kept.err;
  EXPECT_EQ(Slurp(d + "/mine.tar.gz"), "keep me");
  CommandResult forced =
      Nodeprobe({"evidence", "--from-json", run, "--out", d + "/mine.tar.gz", "--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_NE(Slurp(d + "/mine.tar.gz"), "keep me");
  CommandResult out = Nodeprobe({"evidence", "--from-json", run, "--out", "-"});
  EXPECT_EQ(out.exit_code, 0) << out.err;
  EXPECT_TRUE(absl::StartsWith(out.out, "\x1f\x8b")) << "gzip on stdout";
  EXPECT_FALSE(std::ifstream(d + "/-").good());
  // No temporary file anywhere.
  EXPECT_NE(Shell(absl::StrCat("ls -A ", d, " | grep -q '\\.tar\\.gz\\.'")), 0);
}

}  // namespace
}  // namespace nodeprobe

namespace nodeprobe {
namespace {

// `evidence --verify`: a bundle as written verifies (with its public key);
// one whose member was edited, added or removed, whose run.json was edited
// with a manifest written again, or checked against another key, is named
// with exit 1; a file that is not a bundle is exit 2.
TEST(EvidenceVerifyTest, AChangedBundleIsNamedAndExitsOne) {
  testing::TempDir dir;
  const std::string d = dir.path();
  ASSERT_EQ(
      Shell(absl::StrCat("cd ", d, " && for k in key other; do openssl genpkey -algorithm RSA ",
                         "-pkeyopt rsa_keygen_bits:2048 -out $k.pem 2>/dev/null && ",
                         "openssl pkey -in $k.pem -pubout -out $k.pub; done")),
      0);
  ASSERT_EQ(Nodeprobe({"evidence", "--from-json", SavedRun(d), "--out", d + "/b.tar.gz",
                       "--sign-key", d + "/key.pem"})
                .exit_code,
            0);
  CommandResult ok =
      Nodeprobe({"evidence", "--verify", d + "/b.tar.gz", "--pub-key", d + "/key.pub"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(absl::StrContains(ok.out, "verified: run r-9")) << ok.out;
  EXPECT_TRUE(absl::StrContains(ok.out, "signature verified")) << ok.out;
  CommandResult other =
      Nodeprobe({"evidence", "--verify", d + "/b.tar.gz", "--pub-key", d + "/other.pub"});
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(other.err, "signature does not verify")) << other.err;
  // Repacked with a change each: unpack, change, pack again with tar.
  const std::string b = d + "/x/nodeprobe-r-9";
  const std::pair<const char*, const char*> changes[] = {
      {"sed -i s/PASS/FAIL/ record.html", "record.html does not match"},
      {"echo extra > notes.txt", "notes.txt is not in MANIFEST.sha256"},
      {"rm junit.xml", "lists junit.xml, which the bundle does not hold"},
      {"sed -i s/PASS/FAIL/ run.json && sha256sum run.json record.html junit.xml profile.yaml "
       "> MANIFEST.sha256",
       "run.json"}};
  for (const auto& [change, said] : changes) {
    ASSERT_EQ(Shell(absl::StrCat("rm -rf ", d, "/x && mkdir ", d, "/x && tar -xzf ", d,
                                 "/b.tar.gz -C ", d, "/x && cd ", b, " && ", change,
                                 " && tar -czf ", d, "/t.tar.gz -C ", d, "/x nodeprobe-r-9")),
              0)
        << change;
    CommandResult r = Nodeprobe({"evidence", "--verify", d + "/b.tar.gz", d + "/t.tar.gz"});
    EXPECT_EQ(r.exit_code, 1) << change << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.err, said)) << change << ": " << r.err;
    EXPECT_TRUE(absl::StrContains(r.out, "b.tar.gz: verified")) << r.out;  // the other one
  }
  CommandResult junk = Nodeprobe({"evidence", "--verify", SavedRun(d)});
  EXPECT_EQ(junk.exit_code, 2) << junk.err;
  EXPECT_TRUE(absl::StrContains(junk.err, "not an evidence bundle")) << junk.err;
  EXPECT_EQ(
      Nodeprobe({"evidence", "--verify", d + "/b.tar.gz", "--sign-key", d + "/key.pem"}).exit_code,
      2);
}

}  // namespace
}  // namespace nodeprobe

namespace nodeprobe {
namespace {

// The ledger: three acceptances, each bundle written --follows the one
// before. Given in order, the chain is unbroken; with the middle one left
// out, or edited (its manifest written again to match, as a forger would),
// the next names where the chain breaks, exit 1.
TEST(EvidenceVerifyTest, TheLedgerShowsARemovedOrEditedRecord) {
  testing::TempDir dir;
  const std::string d = dir.path();
  std::vector<std::string> bundles;
  for (int i = 1; i <= 3; ++i) {
    v1::StageRun run = MakeRun();
    run.set_run_id(absl::StrCat("r-", i));
    const std::string json = Save(run, absl::StrCat(d, "/r", i, ".json"));
    bundles.push_back(absl::StrCat(d, "/l", i, ".tar.gz"));
    std::vector<std::string> args = {"evidence", "--from-json", json, "--out", bundles.back()};
    if (i > 1) args.insert(args.end(), {"--follows", bundles[static_cast<size_t>(i - 2)]});
    ASSERT_EQ(Nodeprobe(args).exit_code, 0) << i;
  }
  CommandResult whole = Nodeprobe({"evidence", "--verify", bundles[0], bundles[1], bundles[2]});
  EXPECT_EQ(whole.exit_code, 0) << whole.err;
  EXPECT_TRUE(absl::StrContains(whole.out, "ledger unbroken: r-1 (1) -> r-2 (2) -> r-3 (3)"))
      << whole.out;
  CommandResult gap = Nodeprobe({"evidence", "--verify", bundles[0], bundles[2]});
  EXPECT_EQ(gap.exit_code, 1);
  EXPECT_TRUE(absl::StrContains(gap.err, "names run r-2 (record 2) before it")) << gap.err;
  // r-2 edited, its manifest made to match again: it verifies alone, but
  // r-3 no longer follows it.
  ASSERT_EQ(Shell(absl::StrCat(
                "mkdir ", d, "/x && tar -xzf ", bundles[1], " -C ", d, "/x && cd ", d,
                "/x/nodeprobe-r-2 && sed -i s/fleet.yaml/other.yaml/ run.json && ",
                "sha256sum run.json record.html junit.xml profile.yaml ledger.json ",
                "> MANIFEST.sha256 && tar -czf ", d, "/edited.tar.gz -C ", d, "/x nodeprobe-r-2")),
            0);
  CommandResult edited =
      Nodeprobe({"evidence", "--verify", bundles[0], d + "/edited.tar.gz", bundles[2]});
  EXPECT_EQ(edited.exit_code, 1) << edited.err;
  EXPECT_TRUE(absl::StrContains(edited.out, "edited.tar.gz: verified")) << edited.out;
  EXPECT_TRUE(absl::StrContains(edited.err, "l3.tar.gz does not follow")) << edited.err;
  // Never chained to a bundle that does not verify.
  CommandResult bad = Nodeprobe({"evidence", "--from-json", d + "/r3.json", "--out",
                                 d + "/l4.tar.gz", "--follows", d + "/r1.json"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_FALSE(std::ifstream(d + "/l4.tar.gz").good());
}

}  // namespace
}  // namespace nodeprobe
