// The production gate: measured items from what the runs hold (not run is
// never met), organisational items from the profile's acceptance: section
// (missing ones name their key), and a campaign answering from the union of
// its runs with the nodes an item did not cover.
#include "coordinator/acceptance_gate.h"

#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "probes/framework/profile.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::coordinator {
namespace {

// The fixture's acceptance: section, a pin and an accepted exception.
std::string AcceptanceProfileText() {
  return absl::StrCat(
      "versions:\n  nccl: \"2.21\"\n",
      "exceptions:\n  - code: MTU_PEERS_DIFFER\n    reason: \"lab router at 1400\"\n",
      testing::ReadFixture("profiles/acceptance.yaml"));
}

void AddNode(v1::StageRun* run, const std::string& node, v1::Verdict pcie = v1::PASS) {
  v1::StageReport* r = run->add_node_reports();
  r->set_node(node);
  for (const auto& [probe, verdict] :
       std::vector<std::pair<std::string, v1::Verdict>>{{"inventory", v1::PASS},
                                                        {"pcie", pcie},
                                                        {"locality", v1::SKIP},
                                                        {"cabling", v1::SKIP},
                                                        {"nccl", v1::SKIP}}) {
    v1::ProbeResult* p = r->add_results();
    p->set_probe(probe);
    p->set_verdict(verdict);
    if (verdict == v1::SKIP) p->set_reason("no GPU found");
  }
}

void AddPair(v1::StageRun* run, const std::string& from, const std::string& to) {
  for (bool mtu : {true, false}) {
    v1::PairResult* p = run->add_pairs();
    p->set_from_node(from);
    p->set_to_node(to);
    p->set_rail("tcp");
    p->mutable_result()->set_verdict(v1::PASS);
    if (mtu) {
      p->mutable_result()->mutable_mtu();
    } else {
      p->mutable_result()->mutable_transfer();
    }
  }
}

v1::StageRun TwoNode(const std::string& profile_yaml) {
  v1::StageRun run;
  run.set_run_id("r-1");
  run.set_stage(v1::TWO_NODE);
  run.add_nodes("gpu-a");
  run.add_nodes("gpu-b");
  run.mutable_started()->set_seconds(1000);
  run.mutable_profile()->set_source("/etc/nodeprobe/fleet.yaml");
  run.mutable_profile()->set_yaml(profile_yaml);
  AddNode(&run, "gpu-a");
  AddNode(&run, "gpu-b");
  AddPair(&run, "gpu-a", "gpu-b");
  AddPair(&run, "gpu-b", "gpu-a");
  return run;
}

const v1::GateItem& Item(const v1::GateChecklist& gate, const std::string& item) {
  for (const v1::GateItem& g : gate.items()) {
    if (g.item() == item) return g;
  }
  ADD_FAILURE() << "no gate item " << item;
  static const v1::GateItem kNone;
  return kNone;
}

TEST(AcceptanceGateTest, ATwoNodeRunWithoutGpusLeavesTheCollectivesNotRunAndTheGateIncomplete) {
  const v1::GateChecklist gate = GateOf({TwoNode(AcceptanceProfileText())});
  EXPECT_EQ(gate.items_size(), 14);
  EXPECT_FALSE(gate.complete());
  EXPECT_TRUE(absl::StartsWith(gate.headline(), "gate incomplete")) << gate.headline();
  EXPECT_TRUE(absl::StrContains(gate.headline(), "collectives")) << gate.headline();
  const v1::GateItem& coll = Item(gate, "collectives");
  EXPECT_EQ(coll.state(), v1::GATE_NOT_RUN);
  EXPECT_TRUE(absl::StrContains(coll.why(), "no GPU found")) << coll.why();
  EXPECT_EQ(Item(gate, "congestion").state(), v1::GATE_NOT_RUN);
  EXPECT_EQ(Item(gate, "failure").state(), v1::GATE_NOT_RUN);
  // A collective is not the job: the representative workload is its own
  // item, and no run here replayed one.
  EXPECT_EQ(Item(gate, "collectives").title(), "Collective results (nccl-tests-style)");
  EXPECT_EQ(Item(gate, "workload").state(), v1::GATE_NOT_RUN);
  EXPECT_TRUE(absl::StrContains(gate.headline(), "workload")) << gate.headline();
  for (const char* measured : {"versions", "mtu", "transfers"}) {
    const v1::GateItem& g = Item(gate, measured);
    EXPECT_EQ(g.state(), v1::GATE_MET) << measured << ": " << g.why();
    ASSERT_EQ(g.runs_size(), 1) << measured;
    EXPECT_EQ(g.runs(0), "r-1");
    EXPECT_EQ(g.nodes_not_covered_size(), 0) << measured;
  }
  // The organisational half, as the profile wrote it.
  for (const char* org :
       {"owners", "telemetry", "rollback", "limitations", "lifecycle", "service_objective"}) {
    EXPECT_EQ(Item(gate, org).state(), v1::GATE_MET) << org << ": " << Item(gate, org).why();
  }
  const v1::GateItem& owners = Item(gate, "owners");
  ASSERT_EQ(owners.values_size(), 5);
  EXPECT_EQ(owners.values(1), "fabric: fabric-team@example.org");
  const v1::GateItem& limits = Item(gate, "limitations");
  ASSERT_EQ(limits.values_size(), 2);  // the limitation, then the profile's exception
  EXPECT_TRUE(absl::StrContains(limits.values(1), "MTU_PEERS_DIFFER")) << limits.values(1);
  EXPECT_EQ(Item(gate, "lifecycle").values(0), "RUNBOOK-12");
}

TEST(AcceptanceGateTest, WithoutTheSectionEachOrganisationalItemIsNotMetAndNamesItsKey) {
  const v1::GateChecklist gate = GateOf({TwoNode("rdma:\n  error_counters: warn\n")});
  for (const auto& [item, key] : std::vector<std::pair<std::string, std::string>>{
           {"owners", "acceptance.owners.kubernetes"},
           {"telemetry", "acceptance.alert_owner"},
           {"telemetry", "acceptance.dashboards"},
           {"rollback", "acceptance.rollback"},
           {"limitations", "acceptance.limitations"},
           {"lifecycle", "acceptance.upgrade"},
           {"service_objective", "acceptance.service_objective"}}) {
    const v1::GateItem& g = Item(gate, item);
    EXPECT_EQ(g.state(), v1::GATE_NOT_MET) << item;
    EXPECT_TRUE(absl::StrContains(g.why(), key)) << item << ": " << g.why();
  }
  // Recorded but not pinned is not a supported version matrix.
  const v1::GateItem& versions = Item(gate, "versions");
  EXPECT_EQ(versions.state(), v1::GATE_NOT_MET);
  EXPECT_EQ(versions.key(), "versions.<component>");
  // A run with no profile at all says so.
  v1::StageRun bare = TwoNode("");
  bare.clear_profile();
  const v1::GateChecklist none = GateOf({bare});
  EXPECT_EQ(Item(none, "rollback").state(), v1::GATE_NOT_MET);
  EXPECT_TRUE(absl::StrContains(none.profile(), "no profile judged")) << none.profile();
}

TEST(AcceptanceGateTest, AFailingResultIsNotMetAndSaysWhere) {
  v1::StageRun run = TwoNode(AcceptanceProfileText());
  run.mutable_node_reports(1)->mutable_results(1)->set_verdict(v1::FAIL);  // gpu-b's pcie
  const v1::GateChecklist gate = GateOf({run});
  const v1::GateItem& topo = Item(gate, "topology");
  EXPECT_EQ(topo.state(), v1::GATE_NOT_MET);
  EXPECT_TRUE(absl::StrContains(topo.why(), "gpu-b FAIL")) << topo.why();
}

// A FAIL a profile exception turned into a WARN: the item is "waived",
// never met, naming the finding, owner, date and reason; the gate is
// complete with it said in the headline. An expired exception was not
// applied: its FAIL makes the item not met, and the why says so.
TEST(AcceptanceGateTest, AWaivedFindingIsWaivedNotMetAndAnExpiredOneIsNotMet) {
  v1::StageRun run = TwoNode(AcceptanceProfileText());
  v1::ProbeResult* pcie = run.mutable_node_reports(1)->mutable_results(1);
  pcie->set_verdict(v1::WARN);
  v1::Finding* f = pcie->add_findings();
  f->set_code("PCIE_LINK_DEGRADED");
  f->set_severity(v1::WARN);
  f->set_device("0000:17:00.0");
  f->set_exception_reason("riser swap booked");
  f->set_exception_owner("dc-ops");
  f->set_exception_expires("2027-01-31");
  v1::GateChecklist gate = GateOf({run});
  const v1::GateItem& topo = Item(gate, "topology");
  EXPECT_EQ(topo.state(), v1::GATE_WAIVED);
  EXPECT_STREQ(GateStateName(topo.state()), "waived");
  ASSERT_EQ(topo.waivers_size(), 1);
  EXPECT_EQ(topo.waivers(0),
            "PCIE_LINK_DEGRADED on 0000:17:00.0 (gpu-b) waived by dc-ops until 2027-01-31: "
            "riser swap booked");
  EXPECT_TRUE(absl::StrContains(topo.why(), "met only under 1 waiver")) << topo.why();
  EXPECT_TRUE(absl::StrContains(gate.headline(), "waived (topology)")) << gate.headline();

  f->set_severity(v1::FAIL);
  f->set_exception_expired(true);
  pcie->set_verdict(v1::FAIL);
  gate = GateOf({run});
  const v1::GateItem& expired = Item(gate, "topology");
  EXPECT_EQ(expired.state(), v1::GATE_NOT_MET);
  EXPECT_TRUE(absl::StrContains(expired.why(), "expired waiver: PCIE_LINK_DEGRADED"))
      << expired.why();
  EXPECT_FALSE(gate.complete());
}

TEST(AcceptanceGateTest, ACampaignCoversTheUnionOfItsRunsAndNamesNodesNotCovered) {
  v1::StageRun congestion;
  congestion.set_run_id("r-2");
  congestion.set_stage(v1::CONGESTION);
  for (const char* n : {"gpu-a", "gpu-b", "gpu-c"}) congestion.add_nodes(n);
  congestion.mutable_started()->set_seconds(2000);
  v1::CongestionResult* c = congestion.add_congestion();
  c->set_receiver("gpu-c");
  c->add_senders("gpu-a");
  c->add_senders("gpu-b");
  c->set_verdict(v1::PASS);
  const v1::GateChecklist one = GateOf({TwoNode(AcceptanceProfileText())});
  const v1::GateChecklist both = GateOf({TwoNode(AcceptanceProfileText()), congestion});
  EXPECT_EQ(Item(one, "congestion").state(), v1::GATE_NOT_RUN);
  const v1::GateItem& cong = Item(both, "congestion");
  EXPECT_EQ(cong.state(), v1::GATE_MET) << cong.why();
  ASSERT_EQ(cong.runs_size(), 1);
  EXPECT_EQ(cong.runs(0), "r-2");
  // gpu-c was in the campaign, but no run measured its PCIe or versions.
  const v1::GateItem& topo = Item(both, "topology");
  EXPECT_EQ(topo.state(), v1::GATE_NOT_MET);
  ASSERT_EQ(topo.nodes_not_covered_size(), 1);
  EXPECT_EQ(topo.nodes_not_covered(0), "gpu-c");
  // The organisational items come from the newest run with a profile.
  EXPECT_EQ(Item(both, "owners").state(), v1::GATE_MET);
  EXPECT_EQ(both.profile(), "/etc/nodeprobe/fleet.yaml (run r-1)");
}

}  // namespace
}  // namespace nodeprobe::coordinator
