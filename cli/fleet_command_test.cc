// `nodeprobe fleet` from a ListNodes answer: three agents, one with another
// driver -> drift named in the table and the JSON view; exit codes.
#include "cli/fleet_command.h"

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace nodeprobe::cli {
namespace {

v1::NodeInfo Node(const std::string& name, const std::string& driver, v1::Verdict last,
                  int64_t finished) {
  v1::NodeInfo n;
  n.set_name(name);
  n.set_connected(true);
  n.mutable_registration()->set_agent_version("0.8.0");
  v1::Component* rc = n.mutable_registration()->add_inventory();
  rc->set_name("rdma_core");
  rc->set_present(true);
  rc->set_version("44.0");
  if (!driver.empty()) {
    n.set_last_run_id("r-" + name);
    n.set_last_stage(v1::TWO_NODE);
    n.set_last_verdict(last);
    n.mutable_last_report()->set_seconds(finished);
    v1::Component* d = n.add_last_inventory();
    d->set_name("nvidia_driver");
    d->set_present(true);
    d->set_version(driver);
  }
  return n;
}

v1::ListNodesResponse ThreeNodes(v1::Verdict third = v1::PASS) {
  v1::ListNodesResponse r;
  *r.add_nodes() = Node("gpu01", "550.54.15", v1::PASS, 1000);
  *r.add_nodes() = Node("gpu02", "550.54.15", v1::WARN, 1000);
  *r.add_nodes() = Node("gpu03", "535.161.08", third, 1000);
  return r;
}

TEST(FleetViewTest, OneNodeWithAnotherDriverIsShownAsDrift) {
  const v1::FleetView view = BuildFleetView(ThreeNodes(), {});
  ASSERT_EQ(view.versions_size(), 1);  // the last inventory replaces the registration's
  EXPECT_EQ(view.versions(0).component(), "nvidia_driver");
  EXPECT_EQ(view.versions(0).majority(), "550.54.15");
  ASSERT_EQ(view.versions(0).drifted_size(), 1);
  EXPECT_EQ(view.versions(0).drifted(0), "gpu03");
  const std::string table = RenderFleet(view, absl::FromUnixSeconds(1000 + 2 * 3600 + 300));
  EXPECT_NE(table.find("1 of 1 components drift"), std::string::npos) << table;
  EXPECT_NE(table.find("DRIFT: gpu03 535.161.08"), std::string::npos) << table;
  EXPECT_NE(table.find("2h 5m"), std::string::npos) << table;
  EXPECT_NE(table.find("r-gpu01 (two-node)"), std::string::npos) << table;
  // Drift from the majority alone is shown, not failed (a rolling upgrade).
  EXPECT_EQ(FleetExitCode(view), 0);
}

TEST(FleetViewTest, ANodeWithoutARunShowsItsRegistrationAndNoVerdict) {
  v1::ListNodesResponse r;
  *r.add_nodes() = Node("gpu09", "", v1::VERDICT_UNSPECIFIED, 0);
  const v1::FleetView view = BuildFleetView(r, {});
  ASSERT_EQ(view.versions_size(), 1);
  EXPECT_EQ(view.versions(0).component(), "rdma_core");
  EXPECT_NE(RenderFleet(view, absl::Now()).find("no run yet"), std::string::npos);
  EXPECT_EQ(FleetExitCode(view), 0);
}

TEST(FleetViewTest, ExitCodesFollowTheWorstLastVerdictAndThePins) {
  EXPECT_EQ(FleetExitCode(BuildFleetView(ThreeNodes(v1::FAIL), {})), 1);
  EXPECT_EQ(FleetExitCode(BuildFleetView(ThreeNodes(v1::ERROR), {})), 3);
  // A pin the majority meets convicts only the node off it; one the
  // majority misses convicts the fleet.
  const v1::FleetView pinned = BuildFleetView(ThreeNodes(), {{"nvidia_driver", "550"}});
  EXPECT_EQ(pinned.versions(0).pinned(), "550");
  EXPECT_EQ(FleetExitCode(pinned), 1);
  v1::ListNodesResponse same;
  *same.add_nodes() = Node("a", "550.54.15", v1::PASS, 1);
  *same.add_nodes() = Node("b", "550.54.15", v1::PASS, 1);
  EXPECT_EQ(FleetExitCode(BuildFleetView(same, {{"nvidia_driver", "550"}})), 0);
  EXPECT_EQ(FleetExitCode(BuildFleetView(same, {{"nvidia_driver", "535"}})), 1);
}

}  // namespace
}  // namespace nodeprobe::cli
