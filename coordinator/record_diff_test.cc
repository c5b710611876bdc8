#include "coordinator/record_diff.h"

#include <gtest/gtest.h>

#include "coordinator/baseline/test_runs.h"

namespace nodeprobe::coordinator {
namespace {

using baseline::TwoNodeRun;

void SetCabling(v1::StageRun* run, const std::string& node, const std::string& neighbour) {
  for (v1::StageReport& r : *run->mutable_node_reports()) {
    if (r.node() != node) continue;
    v1::ProbeResult* p = r.add_results();
    p->set_probe("cabling");
    (*p->mutable_evidence())["mlx5_0 port 1"] = neighbour;
  }
}

v1::PairResult* AddPair(v1::StageRun* run, const std::string& from, const std::string& rail,
                        double gbps) {
  v1::PairResult* p = run->add_pairs();
  p->set_from_node(from);
  p->set_to_node("gpu01");
  p->set_rail(rail);
  p->mutable_result()->mutable_transfer()->set_op(v1::WRITE_BW);
  p->mutable_result()->mutable_transfer()->add_results()->set_bw_avg_gbps(gbps);
  return p;
}

// The same cluster accepted twice: the second time with a driver upgrade
// on gpu02, gpu02 re-cabled, a third node, and gpu01's rail 20% slower.
TEST(RecordDiffTest, NamesWhatChangedAndOnlyThat) {
  v1::StageRun old_run = TwoNodeRun(1, 392);
  AddPair(&old_run, "gpu02", "mlx5_0", 390);
  SetCabling(&old_run, "gpu01", "leaf1 Eth1/1");
  SetCabling(&old_run, "gpu02", "leaf1 Eth1/2");
  v1::StageRun new_run = TwoNodeRun(30, 314);
  AddPair(&new_run, "gpu02", "mlx5_0", 388);
  new_run.mutable_node_reports(1)
      ->mutable_results(0)
      ->mutable_inventory()
      ->mutable_components(0)
      ->set_version("560.35.03");
  SetCabling(&new_run, "gpu01", "leaf1 Eth1/1");
  SetCabling(&new_run, "gpu02", "leaf2 Eth1/7");
  new_run.add_nodes("gpu03");

  const v1::RecordDiff d = DiffRecords(old_run, new_run);
  EXPECT_EQ(d.old().run_id(), "r-1");
  EXPECT_EQ(d.new_().run_id(), "r-30");
  ASSERT_EQ(d.nodes_added_size(), 1);
  EXPECT_EQ(d.nodes_added(0), "gpu03");
  EXPECT_EQ(d.nodes_removed_size(), 0);
  ASSERT_EQ(d.versions_size(), 1) << d.ShortDebugString();
  EXPECT_EQ(d.versions(0).node(), "gpu02");
  EXPECT_EQ(d.versions(0).what(), "nvidia_driver");
  EXPECT_EQ(d.versions(0).old_value(), "550.54.15");
  EXPECT_EQ(d.versions(0).new_value(), "560.35.03");
  ASSERT_EQ(d.configuration_size(), 1) << d.ShortDebugString();
  EXPECT_EQ(d.configuration(0).node(), "gpu02");
  EXPECT_EQ(d.configuration(0).what(), "cabling: mlx5_0 port 1");
  EXPECT_EQ(d.configuration(0).new_value(), "leaf2 Eth1/7");
  // 392 -> 314 is 20% worse; 390 -> 388 is within the 5% floor.
  EXPECT_EQ(d.figures_compared(), 2u);
  ASSERT_EQ(d.figures_size(), 1) << d.ShortDebugString();
  EXPECT_EQ(d.figures(0).node(), "gpu01");
  EXPECT_TRUE(d.figures(0).worse());
  EXPECT_NEAR(d.figures(0).change(), -0.199, 0.001);
  EXPECT_FALSE(Unchanged(d));
  EXPECT_TRUE(Worse(d));
  // The other way round, the same rail is better: changed, not worse
  // (the node gone is gpu03, which is worse).
  const v1::RecordDiff back = DiffRecords(new_run, old_run);
  ASSERT_EQ(back.figures_size(), 1);
  EXPECT_FALSE(back.figures(0).worse());
  ASSERT_EQ(back.nodes_removed_size(), 1);
  EXPECT_TRUE(Worse(back));
}

// A record against itself: nothing changed, nothing claimed.
TEST(RecordDiffTest, ARecordAgainstItselfIsUnchanged) {
  v1::StageRun run = TwoNodeRun(1, 392);
  SetCabling(&run, "gpu01", "leaf1 Eth1/1");
  const v1::RecordDiff d = DiffRecords(run, run);
  EXPECT_TRUE(Unchanged(d)) << d.ShortDebugString();
  EXPECT_FALSE(Worse(d));
  EXPECT_EQ(d.figures_compared(), 1u);
}

// Two records that share no node are of different fleets: refused, the
// nodes counted; one node in common is enough to compare.
TEST(RecordDiffTest, RecordsOfDifferentFleetsAreRefused) {
  const v1::StageRun ours = TwoNodeRun(1, 392);
  v1::StageRun theirs = TwoNodeRun(2, 392);
  theirs.clear_nodes();
  theirs.add_nodes("dgx-17");
  const absl::Status s = CheckSameFleet(ours, theirs);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "run r-1 (2 nodes) and run r-2 (1 nodes) share no node: records of different "
            "fleets, nothing to compare; diff two acceptances of one cluster");
  theirs.add_nodes("gpu02");
  EXPECT_TRUE(CheckSameFleet(ours, theirs).ok());
}

// A figure whose nodes spread widely in the old record must move further
// than that spread; a probe one record did not run changed nothing.
TEST(RecordDiffTest, AFigureMovesOnlyBeyondItsPeersSpreadAndAProbeNotRunIsNoChange) {
  v1::StageRun old_run = TwoNodeRun(1, 300);
  for (const char* n : {"gpu02", "gpu03", "gpu04"}) AddPair(&old_run, n, "mlx5_0", 0);
  old_run.mutable_pairs(1)
      ->mutable_result()
      ->mutable_transfer()
      ->mutable_results(0)
      ->set_bw_avg_gbps(380);
  old_run.mutable_pairs(2)
      ->mutable_result()
      ->mutable_transfer()
      ->mutable_results(0)
      ->set_bw_avg_gbps(340);
  old_run.mutable_pairs(3)
      ->mutable_result()
      ->mutable_transfer()
      ->mutable_results(0)
      ->set_bw_avg_gbps(260);
  v1::StageRun new_run = old_run;
  new_run.set_run_id("r-2");
  // 300 -> 270: 10%, within three times the old nodes' spread.
  new_run.mutable_pairs(0)
      ->mutable_result()
      ->mutable_transfer()
      ->mutable_results(0)
      ->set_bw_avg_gbps(270);
  SetCabling(&new_run, "gpu01", "leaf1 Eth1/1");  // the old record did not read cabling
  const v1::RecordDiff d = DiffRecords(old_run, new_run);
  EXPECT_EQ(d.figures_size(), 0) << d.ShortDebugString();
  EXPECT_EQ(d.configuration_size(), 0) << d.ShortDebugString();
  EXPECT_TRUE(Unchanged(d));
}

// The gate items whose state changed: the old record's pairs met the
// transfers item; the new record has none.
TEST(RecordDiffTest, AGateItemWhoseStateChangedIsListed) {
  v1::StageRun old_run = TwoNodeRun(1, 392);
  old_run.mutable_pairs(0)->mutable_result()->set_verdict(v1::PASS);
  v1::StageRun new_run = TwoNodeRun(2, 392);
  new_run.clear_pairs();
  const v1::RecordDiff d = DiffRecords(old_run, new_run);
  bool transfers = false;
  for (const v1::RecordDiff::GateChange& g : d.gate()) {
    EXPECT_NE(g.old_state(), g.new_state());
    transfers |= g.item() == "transfers" && g.new_state() == v1::GATE_NOT_RUN;
  }
  EXPECT_TRUE(transfers) << d.ShortDebugString();
}

}  // namespace
}  // namespace nodeprobe::coordinator
