// Nodes' own collectives against each other in one run.
#include "coordinator/collective_peers.h"

#include "gtest/gtest.h"
#include "probes/nccl/nccl_profile.h"

namespace nodeprobe::coordinator {
namespace {

// A node whose nccl probe ran all_reduce over 8 local GPUs at 256 MiB and
// moved `busbw` GB/s.
void AddNode(v1::StageRun* run, const std::string& node, double busbw) {
  v1::StageReport* rep = run->add_node_reports();
  rep->set_node(node);
  rep->set_verdict(v1::PASS);
  v1::ProbeResult* r = rep->add_results();
  r->set_probe("nccl");
  r->set_verdict(v1::PASS);
  r->mutable_collective()->set_nranks(8);
  v1::CollectiveRow* row = r->mutable_collective()->add_rows();
  row->set_collective("all_reduce");
  row->set_size(256u << 20);
  row->set_busbw_gbps(busbw);
}

TEST(CollectivePeersTest, TheSlowNodeAmongAlikeNodesIsWarnedNamingTheMedian) {
  v1::StageRun run;
  AddNode(&run, "gpu01", 362);
  AddNode(&run, "gpu02", 358);
  AddNode(&run, "gpu03", 240);  // a lost NVLink
  AddNode(&run, "gpu04", 365);
  JudgeCollectivesAgainstPeers(Profile{}, &run);
  for (int i = 0; i < 4; ++i) {
    const v1::StageReport& rep = run.node_reports(i);
    SCOPED_TRACE(rep.node());
    const bool slow = rep.node() == "gpu03";
    ASSERT_EQ(rep.results(0).findings_size(), slow ? 1 : 0);
    EXPECT_EQ(rep.verdict(), slow ? v1::WARN : v1::PASS);
    if (!slow) continue;
    const v1::Finding& f = rep.results(0).findings(0);
    EXPECT_EQ(f.code(), "NCCL_BUSBW_BELOW_PEERS");
    EXPECT_NE(f.message().find("66% of the median 362.00 GB/s of the 3 other nodes"),
              std::string::npos)
        << f.message();
  }
}

TEST(CollectivePeersTest, NoMedianFromOnePeerAndNoiseIsNoFinding) {
  v1::StageRun two;
  AddNode(&two, "gpu01", 362);
  AddNode(&two, "gpu02", 100);
  JudgeCollectivesAgainstPeers(Profile{}, &two);
  EXPECT_EQ(two.node_reports(1).results(0).findings_size(), 0);
  v1::StageRun noisy;
  for (double g : {362.0, 340.0, 355.0, 331.0}) AddNode(&noisy, "n" + std::to_string(g), g);
  JudgeCollectivesAgainstPeers(Profile{}, &noisy);
  for (const v1::StageReport& r : noisy.node_reports()) EXPECT_EQ(r.results(0).findings_size(), 0);
}

TEST(CollectivePeersTest, TheProfileSetsTheShare) {
  v1::StageRun run;
  AddNode(&run, "gpu01", 362);
  AddNode(&run, "gpu02", 358);
  AddNode(&run, "gpu03", 300);  // 83%
  Profile p;
  p.MutableSection<NcclRules>().min_fraction_of_peers = 0.8;
  JudgeCollectivesAgainstPeers(p, &run);
  EXPECT_EQ(run.node_reports(2).results(0).findings_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::coordinator
