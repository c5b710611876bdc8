// `nodeprobe evidence --from-json`: the bundle unpacks with tar, its
// manifest verifies with `sha256sum -c`, its signature with `openssl dgst`,
// and bad input is one line with exit 2.
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

// A stored run as `report --format json` writes it.
std::string SavedRun(const std::string& dir) {
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
  v1::ProbeResult* p = r->add_results();
  p->set_probe("pcie");
  p->set_verdict(v1::PASS);
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(run, &json).ok());
  const std::string path = dir + "/run.json";
  std::ofstream(path) << json;
  return path;
}

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
       "cannot read it"},
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

}  // namespace
}  // namespace nodeprobe
