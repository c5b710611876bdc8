#include "coordinator/run_store.h"

#include <sqlite3.h>

#include <sys/stat.h>

#include <tuple>

#include "absl/strings/str_cat.h"
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

TEST(RunStoreTest, EachNodesLastReportIsItsNewestFinishedOne) {
  testing::TempDir dir;
  auto store = RunStore::Open(dir.path() + "/runs.db");
  ASSERT_TRUE(store.ok()) << store.status();
  auto with_reports = [](const std::string& id, const std::string& state,
                         std::vector<std::tuple<std::string, v1::Verdict, int64_t>> reports) {
    v1::StageRun r = MakeRun(id, state, 100);
    for (const auto& [node, verdict, finished] : reports) {
      v1::StageReport* rep = r.add_node_reports();
      rep->set_node(node);
      rep->set_stage(v1::SINGLE_NODE);
      rep->set_verdict(verdict);
      rep->mutable_finished()->set_seconds(finished);
      v1::Component* k = rep->add_results()->mutable_inventory()->add_components();
      k->set_name("kernel");
      k->set_present(true);
      k->set_version(absl::StrCat("6.1.", finished));
    }
    return r;
  };
  ASSERT_TRUE((*store)->Save(with_reports("r1", "done", {{"a", v1::PASS, 1000},
                                                          {"b", v1::FAIL, 1000}})).ok());
  // A newer run of b; then an older run stored late does not win; a run in
  // flight does not count.
  ASSERT_TRUE((*store)->Save(with_reports("r2", "done", {{"b", v1::PASS, 2000}})).ok());
  ASSERT_TRUE((*store)->Save(with_reports("r0", "done", {{"b", v1::ERROR, 500}})).ok());
  ASSERT_TRUE((*store)->Save(with_reports("r3", "running", {{"a", v1::FAIL, 3000}})).ok());
  // Nor does a job's pre-flight, newer as it is: it is the job's view.
  v1::StageRun preflight = with_reports("p1", "done", {{"a", v1::FAIL, 4000}});
  preflight.set_stage(v1::PREFLIGHT);
  ASSERT_TRUE((*store)->Save(preflight).ok());
  EXPECT_TRUE((*store)->Get("p1").ok());
  auto last = (*store)->LastReports();
  ASSERT_TRUE(last.ok()) << last.status();
  ASSERT_EQ(last->size(), 2u);
  EXPECT_EQ(last->at("a").run_id, "r1");
  EXPECT_EQ(last->at("a").verdict, v1::PASS);
  EXPECT_EQ(last->at("b").run_id, "r2");
  EXPECT_EQ(last->at("b").verdict, v1::PASS);
  EXPECT_EQ(last->at("b").finished, 2000);
  EXPECT_EQ(last->at("b").stage, v1::TWO_NODE);  // the run's, not the report's
  ASSERT_EQ(last->at("b").inventory.components_size(), 1);
  EXPECT_EQ(last->at("b").inventory.components(0).version(), "6.1.2000");
}

TEST(RunStoreTest, TheStoreIsReadableByItsOwnerOnly) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/state/runs.db";
  const mode_t old = umask(0);  // even with a permissive umask
  auto store = RunStore::Open(path);
  umask(old);
  ASSERT_TRUE(store.ok()) << store.status();
  ASSERT_TRUE((*store)->Save(MakeRun("r1", "done", 100)).ok());
  struct stat st {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((dir.path() + "/state").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  ASSERT_EQ(stat((path + "-wal").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
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

TEST(RunStoreTest, EveryDirectoryItCreatesIsOwnerOnly) {
  testing::TempDir dir;
  const mode_t old = umask(0);
  auto store = RunStore::Open(dir.path() + "/a/b/c/runs.db");
  umask(old);
  ASSERT_TRUE(store.ok()) << store.status();
  for (const char* level : {"/a", "/a/b", "/a/b/c"}) {
    struct stat st {};
    ASSERT_EQ(stat((dir.path() + level).c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u) << level;
  }
}

// Another program's SQLite file is not adopted: refused, and left as it was.
TEST(RunStoreTest, AForeignDatabaseIsRefusedAndLeftUntouched) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/theirs.db";
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE invoices (id INTEGER); INSERT INTO invoices VALUES (7);",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  auto store = RunStore::Open(path);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("tables nodeprobe did not create (invoices)"),
            std::string::npos)
      << store.status();
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int tables = -1;
  sqlite3_exec(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table'",
               [](void* out, int, char** v, char**) {
                 *static_cast<int*>(out) = atoi(v[0]);
                 return 0;
               },
               &tables, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(tables, 1);  // none of ours added
  // A file that is not SQLite at all: refused with why.
  testing::WriteFile(dir.path() + "/text.db", "this is not a database, it is a poem\n");
  EXPECT_FALSE(RunStore::Open(dir.path() + "/text.db").ok());
}

TEST(RunStoreTest, UnwritablePathIsFailedPreconditionNamingIt) {
  auto store = RunStore::Open("/proc/nodeprobe/runs.db");
  EXPECT_EQ(store.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(store.status().message().find("/proc/nodeprobe/runs.db"), std::string::npos);
}

TEST(RunStoreTest, BaselineMarksAreKeptAndForgettingARunDropsItsPins) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/runs.db";
  {
    auto store = RunStore::Open(path);
    ASSERT_TRUE(store.ok()) << store.status();
    v1::BaselinePin pin;
    pin.set_class_key("gpu=H100 driver=550");
    pin.set_run_id("r1");
    pin.set_until_seconds(100);
    pin.set_at_seconds(150);
    pin.set_by("alice");
    ASSERT_TRUE((*store)->PinBaseline(pin).ok());
    pin.set_class_key("gpu=H200 driver=550");
    pin.set_run_id("r2");
    ASSERT_TRUE((*store)->PinBaseline(pin).ok());
    pin.set_until_seconds(200);  // a class pinned again: replaced, not doubled
    ASSERT_TRUE((*store)->PinBaseline(pin).ok());
  }
  auto store = RunStore::Open(path);  // kept across a restart, and not "foreign"
  ASSERT_TRUE(store.ok()) << store.status();
  absl::StatusOr<v1::BaselineMarks> marks = (*store)->GetBaselineMarks();
  ASSERT_TRUE(marks.ok());
  ASSERT_EQ(marks->pins_size(), 2);
  EXPECT_EQ(marks->pins(1).until_seconds(), 200);
  EXPECT_EQ(marks->pins(0).by(), "alice");
  v1::ForgottenRun f;
  f.set_run_id("r1");
  f.set_at_seconds(300);
  f.set_by("bob");
  ASSERT_TRUE((*store)->ForgetRun(f).ok());
  ASSERT_TRUE((*store)->ForgetRun(f).ok());  // twice is once
  marks = (*store)->GetBaselineMarks();
  ASSERT_EQ(marks->forgotten_size(), 1);
  ASSERT_EQ(marks->pins_size(), 1);  // r1's pin went with it
  EXPECT_EQ(marks->pins(0).run_id(), "r2");
  EXPECT_TRUE((*store)->Unpin("gpu=H200 driver=550").ok());
  EXPECT_EQ((*store)->Unpin("gpu=H200 driver=550").code(), absl::StatusCode::kNotFound);
  EXPECT_EQ((*store)->GetBaselineMarks()->pins_size(), 0);
}

}  // namespace
}  // namespace nodeprobe::coordinator
