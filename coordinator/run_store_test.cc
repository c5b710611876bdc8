#include "coordinator/run_store.h"

#include "gtest/gtest.h"
#include "tests/testing/fixtures.h"

namespace nodeprobe::coordinator {
namespace {

v1::StageRun MakeRun(const std::string& id, const std::string& state, int64_t started) {
  v1::StageRun r;
  r.set_run_id(id);
  r.set_stage(v1::TWO_NODE);
  r.add_nodes("gpu01");
  r.add_nodes("gpu02");
  r.set_state(state);
  r.set_verdict(state == "running" ? v1::VERDICT_UNSPECIFIED : v1::PASS);
  r.mutable_started()->set_seconds(started);
  return r;
}

TEST(RunStoreTest, SavesUpdatesListsAndGets) {
  testing::TempDir dir;
  auto store = RunStore::Open(dir.path() + "/runs.db");
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->Save(MakeRun("r1", "running", 100)).ok());
  ASSERT_TRUE((*store)->Save(MakeRun("r1", "done", 100)).ok());
  ASSERT_TRUE((*store)->Save(MakeRun("r2", "done", 200)).ok());
  auto runs = (*store)->List(10);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run_id(), "r2");  // newest first
  auto r1 = (*store)->Get("r1");
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->state(), "done");
  EXPECT_EQ((*store)->Get("nope").status().code(), absl::StatusCode::kNotFound);
}

TEST(RunStoreTest, RunInFlightAtRestartBecomesErrorNotLost) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/runs.db";
  {
    auto store = RunStore::Open(path);
    ASSERT_TRUE(store.ok());
    ASSERT_TRUE((*store)->Save(MakeRun("r1", "running", 100)).ok());
    ASSERT_TRUE((*store)->Save(MakeRun("r2", "done", 200)).ok());
  }
  auto store = RunStore::Open(path);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->interrupted_on_open(), 1);
  auto r1 = (*store)->Get("r1");
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->state(), "error");
  EXPECT_EQ(r1->verdict(), v1::ERROR);
  ASSERT_EQ(r1->findings_size(), 1);
  EXPECT_EQ(r1->findings(0).code(), "COORDINATOR_RESTARTED");
  EXPECT_EQ((*store)->Get("r2")->state(), "done");
}

TEST(RunStoreTest, UnwritablePathIsFailedPreconditionNamingIt) {
  auto store = RunStore::Open("/proc/nodeprobe/runs.db");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("/proc/nodeprobe/runs.db"), std::string::npos);
}

}  // namespace
}  // namespace nodeprobe::coordinator
