// `nodeprobe evidence --diff OLD NEW`: two acceptance records of one
// cluster (saved JSON, or the evidence bundle `evidence` wrote) compared in
// each format, the exit code saying whether the new one is worse, and bad
// input one line with exit 2.
#include <google/protobuf/util/json_util.h>

#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/record_diff.pb.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/run_binary.h"

namespace nodeprobe {
namespace {

using ::nodeprobe::testing::CommandResult;

CommandResult Nodeprobe(const std::vector<std::string>& args) {
  return testing::RunBinary(NODEPROBE_BINARY, args);
}

// A two-node acceptance: gpu01 -> gpu02 at `gbps` on mlx5_0, every node on
// NVIDIA driver `driver`, cabled to leaf1.
v1::StageRun Accepted(const std::string& id, const std::vector<std::string>& nodes, double gbps,
                      const std::string& driver) {
  v1::StageRun run;
  run.set_run_id(id);
  run.set_stage(v1::TWO_NODE);
  run.set_verdict(v1::PASS);
  run.set_state("done");
  for (const std::string& n : nodes) {
    run.add_nodes(n);
    v1::StageReport* r = run.add_node_reports();
    r->set_node(n);
    r->set_verdict(v1::PASS);
    v1::ProbeResult* inv = r->add_results();
    inv->set_probe("inventory");
    inv->set_verdict(v1::PASS);
    v1::Component* c = inv->mutable_inventory()->add_components();
    c->set_name("nvidia_driver");
    c->set_present(true);
    c->set_version(driver);
    v1::ProbeResult* cab = r->add_results();
    cab->set_probe("cabling");
    cab->set_verdict(v1::PASS);
    (*cab->mutable_evidence())["mlx5_0 port 1"] = "leaf1 Eth1/" + n.substr(3);
  }
  v1::PairResult* p = run.add_pairs();
  p->set_from_node(nodes[0]);
  p->set_to_node(nodes[1]);
  p->set_rail("mlx5_0");
  p->mutable_result()->set_verdict(v1::PASS);
  p->mutable_result()->mutable_transfer()->set_op(v1::WRITE_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(gbps);
  return run;
}

std::string Save(const v1::StageRun& run, const std::string& path) {
  std::string json;
  EXPECT_TRUE(google::protobuf::util::MessageToJsonString(run, &json).ok());
  std::ofstream(path) << json;
  return path;
}

TEST(EvidenceDiffTest, AnUpgradeAndASlowerRailAreNamedAndExitOne) {
  testing::TempDir dir;
  const std::string d = dir.path();
  const std::string old_json =
      Save(Accepted("r-1", {"gpu01", "gpu02"}, 392, "550.54.15"), d + "/old.json");
  // The new record as a bundle, as the acceptance would have kept it.
  const std::string new_json =
      Save(Accepted("r-2", {"gpu01", "gpu02", "gpu03"}, 310, "560.35.03"), d + "/new.json");
  ASSERT_EQ(Nodeprobe({"evidence", "--from-json", new_json, "--out", d + "/new.tar.gz"}).exit_code,
            0);
  CommandResult text = Nodeprobe({"evidence", "--diff", old_json, d + "/new.tar.gz"});
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_TRUE(absl::StrContains(text.out, "gpu03  added")) << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "gpu02  nvidia_driver  550.54.15 -> 560.35.03"))
      << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "WRITE_BW gbps rail mlx5_0  392 -> 310  -20.9% (worse"))
      << text.out;
  EXPECT_TRUE(absl::StrContains(text.out, "the new record is worse")) << text.out;
  // Cabling did not change on the nodes in both.
  EXPECT_FALSE(absl::StrContains(text.out, "cabling:")) << text.out;

  CommandResult json = Nodeprobe({"evidence", "--diff", old_json, new_json, "--format", "json"});
  EXPECT_EQ(json.exit_code, 1) << json.err;
  v1::RecordDiff diff;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json.out, &diff).ok()) << json.out;
  EXPECT_EQ(diff.new_().run_id(), "r-2");
  ASSERT_EQ(diff.figures_size(), 1);
  EXPECT_TRUE(diff.figures(0).worse());
  EXPECT_EQ(diff.versions_size(), 2);  // gpu01 and gpu02

  CommandResult md = Nodeprobe({"evidence", "--diff", old_json, new_json, "--format", "markdown"});
  EXPECT_TRUE(absl::StrContains(md.out, "| node | figure | value | move |\n|---|---|---|---|"))
      << md.out;
  CommandResult html = Nodeprobe(
      {"evidence", "--diff", old_json, new_json, "--format", "html", "--out", d + "/diff.html"});
  EXPECT_EQ(html.exit_code, 1) << html.err;
  std::ifstream in(d + "/diff.html");
  const std::string page((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(absl::StrContains(page, "<td>560.35.03") || absl::StrContains(page, "560.35.03"))
      << page;
  EXPECT_TRUE(absl::StrContains(page, "<table")) << page;
}

TEST(EvidenceDiffTest, ARecordAgainstItselfChangedNothingAndExitsZero) {
  testing::TempDir dir;
  const std::string run =
      Save(Accepted("r-1", {"gpu01", "gpu02"}, 392, "550.54.15"), dir.path() + "/run.json");
  CommandResult r = Nodeprobe({"evidence", "--diff", run, run});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(absl::StrContains(r.out, "nothing changed beyond the spread")) << r.out;
}

TEST(EvidenceDiffTest, BadInputIsOneLineAndExitTwo) {
  testing::TempDir dir;
  const std::string d = dir.path();
  const std::string run = Save(Accepted("r-1", {"gpu01", "gpu02"}, 392, "x"), d + "/run.json");
  std::ofstream(d + "/junk.gz") << "\x1f\x8bnot really gzip";
  std::ofstream(d + "/junk.json") << "{\"nodes\": 7}";
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"evidence", "--diff", run},
                                             {"evidence", "--diff", run, d + "/junk.gz"},
                                             {"evidence", "--diff", run, d + "/junk.json"},
                                             {"evidence", "--diff", run, "no such/file"},
                                             {"evidence", "--diff", run, d},
                                             {"evidence", "--diff", run, run, "--sign-key", run},
                                             {"evidence", "--diff", run, run, "--format", "pdf"},
                                             {"evidence"}}) {
    CommandResult r = Nodeprobe(args);
    EXPECT_EQ(r.exit_code, 2) << args.back() << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

}  // namespace
}  // namespace nodeprobe
