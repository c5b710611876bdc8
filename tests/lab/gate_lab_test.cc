// The production gate of a real two-node run in the namespace lab: with a
// profile holding every acceptance: key the organisational items are met
// with their values, the collectives (no GPU here) are not run, and the
// headline says the gate is incomplete, in the JSON and in the HTML as a
// browser shows it (above the fold); without the section each
// organisational item is not met and names its key; a campaign of two runs
// answers from both.
#include <google/protobuf/util/json_util.h>

#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nodeprobe/v1/service.pb.h"
#include "tests/lab/fleet_fixture.h"
#include "tests/testing/fixtures.h"
#include "tests/testing/headless_browser.h"

namespace nodeprobe::lab {
namespace {

const v1::GateItem* Item(const v1::GateChecklist& gate, const std::string& item) {
  for (const v1::GateItem& g : gate.items()) {
    if (g.item() == item) return &g;
  }
  ADD_FAILURE() << "no gate item " << item << " in " << gate.DebugString();
  return nullptr;
}

TEST_F(ControlPlaneLabTest, TheGateShowsTheProfilesOwnersAndTheCollectivesNotRun) {
  ASSERT_TRUE(StartPlaintextFleet());
  const std::string profile = dir_.path() + "/acceptance.yaml";
  testing::WriteFile(profile, testing::ReadFixture("profiles/acceptance.yaml"));
  std::string out;
  ASSERT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                    "--transfer-seconds", "1", "--profile", profile},
                   false, &out),
            0)
      << out;
  const v1::StageRun run = ParseRun(out);
  const v1::GateChecklist& gate = run.gate();
  EXPECT_FALSE(gate.complete());
  EXPECT_TRUE(absl::StartsWith(gate.headline(), "gate incomplete")) << gate.headline();
  const v1::GateItem* coll = Item(gate, "collectives");
  ASSERT_NE(coll, nullptr);
  EXPECT_EQ(coll->state(), v1::GATE_NOT_RUN) << coll->why();
  const v1::GateItem* owners = Item(gate, "owners");
  ASSERT_NE(owners, nullptr);
  EXPECT_EQ(owners->state(), v1::GATE_MET) << owners->why();
  EXPECT_EQ(owners->values_size(), 5);
  for (const char* org :
       {"telemetry", "rollback", "limitations", "lifecycle", "service_objective"}) {
    const v1::GateItem* g = Item(gate, org);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->state(), v1::GATE_MET) << org << ": " << g->why();
  }
  const v1::GateItem* transfers = Item(gate, "transfers");
  ASSERT_NE(transfers, nullptr);
  EXPECT_EQ(transfers->state(), v1::GATE_MET) << transfers->why();

  // The stored run's record, as a browser shows it: the gate above the
  // fold, the owners as written, the collectives not run.
  std::string html;
  ASSERT_EQ(Client({"report", "--run", run.run_id(), "--format", "html"}, false, &html), 0);
  const std::string probe = R"(<script>
window.addEventListener('load', function () {
  var fold = window.innerHeight;
  var head = document.querySelector('#gate .gate-headline');
  var coll = document.querySelector('#gate tr[data-item="collectives"]');
  var owners = document.querySelector('#gate tr[data-item="owners"]');
  document.body.setAttribute('data-probe', 'above=' +
      (head.getBoundingClientRect().bottom <= fold) +
      ';collectives=' + coll.cells[1].textContent +
      ';headline=' + head.textContent.split(':')[0] +
      ';owners=' + owners.cells[1].textContent +
      ';fabric=' + (owners.cells[2].textContent.indexOf('fabric: fabric-team@example.org') >= 0));
});
</script>)";
  const std::string page_path = dir_.path() + "/record.html";
  std::ofstream(page_path) << html.substr(html.find("<!DOCTYPE")) << probe;
  if (testing::HaveChromium()) {
    absl::StatusOr<testing::RenderedPage> page = testing::RenderInChromium(page_path, dir_.path());
    ASSERT_TRUE(page.ok()) << page.status();
    EXPECT_TRUE(absl::StrContains(page->dom,
                                  "data-probe=\"above=true;collectives=not run;headline=gate "
                                  "incomplete;owners=met;fabric=true\""))
        << page->dom.substr(0, 3000);
  } else {
    ADD_FAILURE() << "chromium is not installed (Debian package chromium): the gate's HTML "
                     "was not rendered";
  }

  // The same run without the section: each organisational item not met,
  // naming its key.
  const std::string bare = dir_.path() + "/bare.yaml";
  testing::WriteFile(bare, "rdma:\n  error_counters: warn\n");
  ASSERT_EQ(Client({"run", "--stage", "two-node", "--nodes", "gpu-a,gpu-b", "--format", "json",
                    "--transfer-seconds", "1", "--profile", bare},
                   false, &out),
            0)
      << out;
  const v1::StageRun second = ParseRun(out);
  for (const auto& [item, key] : std::vector<std::pair<std::string, std::string>>{
           {"owners", "acceptance.owners.host"},
           {"telemetry", "acceptance.dashboards"},
           {"rollback", "acceptance.rollback"},
           {"limitations", "acceptance.limitations"},
           {"lifecycle", "acceptance.upgrade"},
           {"service_objective", "acceptance.service_objective"}}) {
    const v1::GateItem* g = Item(second.gate(), item);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->state(), v1::GATE_NOT_MET) << item;
    EXPECT_TRUE(absl::StrContains(g->why(), key)) << item << ": " << g->why();
  }

  // A campaign of both: one gate over the union, the newest profile's
  // organisational items, each measured item resting on both runs.
  std::string campaign;
  ASSERT_EQ(Client({"report", "--runs", absl::StrCat(run.run_id(), ",", second.run_id()),
                    "--format", "json"},
                   false, &campaign),
            0);
  v1::CampaignRecord record;
  ASSERT_TRUE(
      google::protobuf::util::JsonStringToMessage(campaign.substr(campaign.find('{')), &record)
          .ok())
      << campaign;
  ASSERT_EQ(record.runs_size(), 2);
  const v1::GateItem* both = Item(record.gate(), "transfers");
  ASSERT_NE(both, nullptr);
  EXPECT_EQ(both->runs_size(), 2) << both->DebugString();
  EXPECT_EQ(Item(record.gate(), "collectives")->state(), v1::GATE_NOT_RUN);
}

}  // namespace
}  // namespace nodeprobe::lab
