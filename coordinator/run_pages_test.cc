#include "coordinator/run_pages.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "controlplane/credentials.h"
#include "coordinator/coordinator_service.h"
#include "coordinator/run_store.h"
#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::coordinator {
namespace {

// A fleet-sized run: `reports` node reports and `pairs` pairs of ~500 B.
v1::StageRun BigRun(int reports, int pairs) {
  v1::StageRun run;
  run.set_run_id("big");
  run.set_stage(v1::CLUSTER);
  run.set_state("done");
  for (int i = 0; i < reports; ++i) {
    v1::StageReport* r = run.add_node_reports();
    r->set_node(absl::StrCat("node", i));
    r->add_results()->set_reason(std::string(300, 'r'));
  }
  for (int i = 0; i < pairs; ++i) {
    v1::PairResult* p = run.add_pairs();
    p->set_from_node(absl::StrCat("node", i % 5000));
    p->set_to_node(absl::StrCat("node", (i + 1) % 5000));
    p->set_rail("mlx5_0:1");
    p->mutable_result()->set_reason(std::string(400, 'p'));
  }
  return run;
}

TEST(RunPagesTest, PagesStayUnderTheirBudgetAndCoverEverythingOnce) {
  const v1::StageRun run = BigRun(5000, 40000);
  ASSERT_GT(run.ByteSizeLong(), 16u << 20);  // one message would pass gRPC's limit
  int reports = 0, pairs = 0, pages = 0;
  while (true) {
    v1::StageRun page = RunPage(run, reports, pairs);
    ++pages;
    EXPECT_LE(page.ByteSizeLong(), kRunPageBytes);
    EXPECT_EQ(page.node_reports_total(), 5000u);
    EXPECT_EQ(page.pairs_total(), 40000u);
    if (page.node_reports_size() > 0) {
      EXPECT_EQ(page.node_reports(0).node(), absl::StrCat("node", reports));
    }
    reports += page.node_reports_size();
    pairs += page.pairs_size();
    if (page.node_reports_size() + page.pairs_size() == 0) break;
  }
  EXPECT_EQ(reports, 5000);
  EXPECT_EQ(pairs, 40000);
  EXPECT_GT(pages, 5);
  // A small run is one page, nothing missing.
  EXPECT_FALSE(IsPartial(RunPage(BigRun(2, 4), 0, 0)));
  EXPECT_TRUE(IsPartial(RunPage(run, 0, 0)));
}

TEST(RunPagesTest, AReportLargerThanTheLimitComesBackWhole) {
  testing::TempDir dir;
  const std::string db = dir.path() + "/runs.db";
  {
    auto store = RunStore::Open(db);
    ASSERT_TRUE(store.ok()) << store.status();
    ASSERT_TRUE((*store)->Save(BigRun(5000, 40000)).ok());
  }
  CoordinatorOptions o;
  o.listen = "127.0.0.1:0";
  o.db_path = db;
  o.tls.insecure = true;
  auto server = CoordinatorServer::Start(o);
  ASSERT_TRUE(server.ok()) << server.status();
  auto channel = controlplane::Dial(absl::StrCat("127.0.0.1:", (*server)->port()), o.tls);
  ASSERT_TRUE(channel.ok());
  auto stub = v1::Coordinator::NewStub(*channel);
  absl::StatusOr<v1::StageRun> run = FetchRun(stub.get(), "big", absl::Now() + absl::Seconds(60));
  ASSERT_TRUE(run.ok()) << run.status();
  EXPECT_EQ(run->node_reports_size(), 5000);
  EXPECT_EQ(run->pairs_size(), 40000);
  EXPECT_EQ(run->pairs(39999).from_node(), "node4999");
  EXPECT_FALSE(IsPartial(*run));
  absl::StatusOr<v1::StageRun> missing = FetchRun(stub.get(), "nope", absl::Now() + absl::Seconds(5));
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace nodeprobe::coordinator
