#include "coordinator/run_store.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/version_matrix.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {
namespace {

constexpr int kSchemaVersion = 1;

absl::Status SqlError(sqlite3* db, const std::string& what) {
  return absl::InternalError(absl::StrCat(what, ": ", sqlite3_errmsg(db)));
}

// Statement with automatic finalize.
struct Stmt {
  sqlite3_stmt* s = nullptr;
  ~Stmt() { sqlite3_finalize(s); }
};

}  // namespace

std::string DefaultDbPath() {
  if (geteuid() == 0) return "/var/lib/nodeprobe/runs.db";
  const char* xdg = getenv("XDG_DATA_HOME");
  const char* home = getenv("HOME");
  std::string base = xdg && *xdg ? xdg : absl::StrCat(home ? home : "/tmp", "/.local/share");
  return absl::StrCat(base, "/nodeprobe/runs.db");
}

absl::StatusOr<std::unique_ptr<RunStore>> RunStore::Open(const std::string& path) {
  // Runs hold every node's topology, versions and findings: every
  // directory we create is 0700 (each missing level, not only the last),
  // the database (and its WAL files, which SQLite makes with the
  // database's mode) 0600.
  std::vector<std::filesystem::path> missing;
  for (std::filesystem::path p = std::filesystem::path(path).parent_path();
       !p.empty() && p != p.root_path(); p = p.parent_path()) {
    struct stat st;
    if (stat(p.c_str(), &st) == 0) break;
    missing.push_back(p);
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return absl::FailedPreconditionError(absl::StrCat(
          "cannot create ", it->string(), " for the run database ", path, ": ", strerror(errno),
          " (choose another --db)"));
    }
    chmod(it->c_str(), 0700);
  }
  {
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0) {
      fchmod(fd, 0600);
      close(fd);
    }
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                            SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    absl::Status s = absl::FailedPreconditionError(
        absl::StrCat("cannot open run database ", path, ": ",
                     db ? sqlite3_errmsg(db) : "out of memory", " (choose another --db)"));
    sqlite3_close(db);
    return s;
  }
  std::unique_ptr<RunStore> store(new RunStore(db));
  sqlite3_busy_timeout(db, 5000);
  absl::Status s;
  {
    platform::MutexLock l(&store->mu_);
    s = store->Migrate();
    if (s.ok()) s = store->CloseInterrupted();
  }
  if (!s.ok()) {
    return absl::FailedPreconditionError(absl::StrCat(path, ": ", s.message()));
  }
  return store;
}

RunStore::~RunStore() { sqlite3_close(db_); }

absl::Status RunStore::Migrate() {
  // The file is ours alone: a database holding tables nodeprobe did not
  // create is another program's, and is not adopted.
  {
    static const std::set<std::string> kOurs = {"schema_version",   "runs",
                                                "node_last_report", "node_last_config",
                                                "baseline_pins",    "baseline_forgotten"};
    Stmt t;
    if (sqlite3_prepare_v2(db_, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &t.s,
                           nullptr) != SQLITE_OK) {
      return absl::FailedPreconditionError(absl::StrCat(
          "not a database nodeprobe can use (", sqlite3_errmsg(db_), "); choose another --db"));
    }
    std::vector<std::string> foreign;
    while (sqlite3_step(t.s) == SQLITE_ROW) {
      const unsigned char* name = sqlite3_column_text(t.s, 0);
      const std::string n = name ? reinterpret_cast<const char*>(name) : "";
      if (!kOurs.count(n) && n.rfind("sqlite_", 0) != 0) foreign.push_back(n);
    }
    if (!foreign.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "holds tables nodeprobe did not create (", absl::StrJoin(foreign, ", "),
          "): it is another program's database, left untouched; choose another --db"));
    }
  }
  const char* sql =
      "PRAGMA journal_mode=WAL;"
      "PRAGMA synchronous=NORMAL;"
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
      "CREATE TABLE IF NOT EXISTS runs ("
      "  id TEXT PRIMARY KEY, stage TEXT NOT NULL, nodes TEXT NOT NULL,"
      "  state TEXT NOT NULL, verdict TEXT NOT NULL, started INTEGER NOT NULL,"
      "  record BLOB NOT NULL);"
      "CREATE INDEX IF NOT EXISTS runs_started ON runs(started);"
      // Added beside schema 1 (a new table only; older files gain it here).
      "CREATE TABLE IF NOT EXISTS node_last_report ("
      "  node TEXT PRIMARY KEY, run_id TEXT NOT NULL, stage TEXT NOT NULL,"
      "  verdict TEXT NOT NULL, finished INTEGER NOT NULL, inventory BLOB);"
      // Likewise: each node's newest RoCE and host settings (a run without
      // roce-config or host-config leaves them as they were).
      "CREATE TABLE IF NOT EXISTS node_last_config ("
      "  node TEXT PRIMARY KEY, finished INTEGER NOT NULL, config BLOB NOT NULL);"
      // Likewise: the operators' baseline marks (baseline_service.proto).
      "CREATE TABLE IF NOT EXISTS baseline_pins ("
      "  class_key TEXT PRIMARY KEY, run_id TEXT NOT NULL, until INTEGER NOT NULL,"
      "  at INTEGER NOT NULL, by TEXT NOT NULL);"
      "CREATE TABLE IF NOT EXISTS baseline_forgotten ("
      "  run_id TEXT PRIMARY KEY, at INTEGER NOT NULL, by TEXT NOT NULL);";
  if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqlError(db_, "create schema");
  }
  Stmt q;
  sqlite3_prepare_v2(db_, "SELECT version FROM schema_version", -1, &q.s, nullptr);
  if (sqlite3_step(q.s) == SQLITE_ROW) {
    int v = sqlite3_column_int(q.s, 0);
    if (v > kSchemaVersion) {
      return absl::FailedPreconditionError(absl::StrCat(
          "database schema ", v, " is newer than this nodeprobe (", kSchemaVersion, ")"));
    }
    return absl::OkStatus();
  }
  std::string ins = absl::StrCat("INSERT INTO schema_version VALUES (", kSchemaVersion, ")");
  if (sqlite3_exec(db_, ins.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqlError(db_, "schema version");
  }
  return absl::OkStatus();
}

absl::Status RunStore::CloseInterrupted() {
  std::vector<v1::StageRun> running;
  {
    Stmt q;
    sqlite3_prepare_v2(db_, "SELECT record FROM runs WHERE state = 'running'", -1, &q.s,
                       nullptr);
    while (sqlite3_step(q.s) == SQLITE_ROW) {
      v1::StageRun run;
      if (run.ParseFromArray(sqlite3_column_blob(q.s, 0), sqlite3_column_bytes(q.s, 0))) {
        running.push_back(std::move(run));
      }
    }
  }
  for (v1::StageRun& run : running) {
    run.set_state("error");
    run.set_verdict(v1::ERROR);
    AddFinding(run.mutable_findings(), findings::kCoordinatorRestarted.code, "",
               "the coordinator restarted while this run was in flight");
    absl::Status s = SaveLocked(run);
    if (!s.ok()) return s;
    ++interrupted_;
  }
  return absl::OkStatus();
}

absl::Status RunStore::Save(const v1::StageRun& run) {
  platform::MutexLock l(&mu_);
  return SaveLocked(run);
}

absl::Status RunStore::SaveLocked(const v1::StageRun& run) {
  std::string blob = run.SerializeAsString();
  std::string nodes;
  for (const auto& n : run.nodes()) absl::StrAppend(&nodes, nodes.empty() ? "" : ",", n);
  Stmt q;
  sqlite3_prepare_v2(db_,
                     "INSERT INTO runs (id, stage, nodes, state, verdict, started, record) "
                     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT(id) DO UPDATE SET "
                     "state = ?4, verdict = ?5, record = ?7",
                     -1, &q.s, nullptr);
  sqlite3_bind_text(q.s, 1, run.run_id().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q.s, 2, StageName(run.stage()), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q.s, 3, nodes.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q.s, 4, run.state().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q.s, 5, VerdictName(run.verdict()), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q.s, 6, run.started().seconds());
  sqlite3_bind_blob(q.s, 7, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(q.s) != SQLITE_DONE) return SqlError(db_, "save run");
  if (run.state() == "running") return absl::OkStatus();
  // A job's pre-flight is the job's view from inside its container, not the
  // node's health: it never becomes the node's last report in the fleet.
  if (run.stage() == v1::PREFLIGHT) return absl::OkStatus();
  // Each node's own report, when it is newer than the one kept.
  for (const v1::StageReport& r : run.node_reports()) {
    if (r.node().empty()) continue;
    Stmt u;
    sqlite3_prepare_v2(db_,
                       "INSERT INTO node_last_report (node, run_id, stage, verdict, finished, "
                       "inventory) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(node) DO UPDATE "
                       "SET run_id = ?2, stage = ?3, verdict = ?4, finished = ?5, inventory = ?6 "
                       "WHERE ?5 >= node_last_report.finished",
                       -1, &u.s, nullptr);
    sqlite3_bind_text(u.s, 1, r.node().c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(u.s, 2, run.run_id().c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(u.s, 3, StageName(run.stage()), -1, SQLITE_TRANSIENT);  // the run's
    sqlite3_bind_text(u.s, 4, VerdictName(r.verdict()), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(u.s, 5, r.finished().seconds());
    std::string inventory;
    for (const v1::ProbeResult& p : r.results()) {
      if (p.has_inventory()) inventory = p.inventory().SerializeAsString();
    }
    sqlite3_bind_blob(u.s, 6, inventory.data(), static_cast<int>(inventory.size()),
                      SQLITE_TRANSIENT);
    if (sqlite3_step(u.s) != SQLITE_DONE) return SqlError(db_, "save node report");
    if (absl::Status c = SaveNodeConfig(r); !c.ok()) return c;
  }
  return absl::OkStatus();
}

absl::Status RunStore::SaveNodeConfig(const v1::StageReport& r) {
  v1::ConfigReport config;
  *config.mutable_settings() = coordinator::SettingsOf(r);
  if (config.settings().empty()) return absl::OkStatus();
  const std::string blob = config.SerializeAsString();
  Stmt u;
  sqlite3_prepare_v2(db_,
                     "INSERT INTO node_last_config (node, finished, config) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT(node) DO UPDATE SET finished = ?2, config = ?3 "
                     "WHERE ?2 >= node_last_config.finished",
                     -1, &u.s, nullptr);
  sqlite3_bind_text(u.s, 1, r.node().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(u.s, 2, r.finished().seconds());
  sqlite3_bind_blob(u.s, 3, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
  if (sqlite3_step(u.s) != SQLITE_DONE) return SqlError(db_, "save node configuration");
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, LastReport>> RunStore::LastReports() {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_, "SELECT node, run_id, stage, verdict, finished, inventory FROM node_last_report",
                     -1, &q.s, nullptr);
  std::map<std::string, LastReport> out;
  int rc;
  while ((rc = sqlite3_step(q.s)) == SQLITE_ROW) {
    auto text = [&](int col) {
      const unsigned char* t = sqlite3_column_text(q.s, col);
      return std::string(t ? reinterpret_cast<const char*>(t) : "");
    };
    LastReport r{
        text(1), StageFromName(text(2)), VerdictFromName(text(3)), sqlite3_column_int64(q.s, 4), {},
        {}};
    if (sqlite3_column_bytes(q.s, 5) > 0 &&
        !r.inventory.ParseFromArray(sqlite3_column_blob(q.s, 5), sqlite3_column_bytes(q.s, 5))) {
      r.inventory.Clear();  // unreadable: the registration's is used instead
    }
    out[text(0)] = std::move(r);
  }
  if (rc != SQLITE_DONE) return SqlError(db_, "read node reports");
  Stmt c;
  sqlite3_prepare_v2(db_, "SELECT node, config FROM node_last_config", -1, &c.s, nullptr);
  while ((rc = sqlite3_step(c.s)) == SQLITE_ROW) {
    const unsigned char* node = sqlite3_column_text(c.s, 0);
    auto it = out.find(node ? reinterpret_cast<const char*>(node) : "");
    // Unreadable: the node shows no settings rather than wrong ones.
    if (it != out.end() && !it->second.config.ParseFromArray(sqlite3_column_blob(c.s, 1),
                                                             sqlite3_column_bytes(c.s, 1))) {
      it->second.config.Clear();
    }
  }
  if (rc != SQLITE_DONE) return SqlError(db_, "read node configurations");
  return out;
}

absl::StatusOr<v1::StageRun> RunStore::Get(const std::string& run_id) {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_, "SELECT record FROM runs WHERE id = ?1", -1, &q.s, nullptr);
  sqlite3_bind_text(q.s, 1, run_id.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q.s) != SQLITE_ROW) {
    return absl::NotFoundError(absl::StrCat("no run '", run_id, "' (see `nodeprobe runs`)"));
  }
  v1::StageRun run;
  if (!run.ParseFromArray(sqlite3_column_blob(q.s, 0), sqlite3_column_bytes(q.s, 0))) {
    return absl::DataLossError(absl::StrCat("run ", run_id, " is unreadable"));
  }
  return run;
}

absl::StatusOr<std::vector<v1::StageRun>> RunStore::AcceptedRuns(int limit) {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_,
                     "SELECT record FROM runs WHERE state = 'done' AND verdict IN ('PASS', 'WARN') "
                     "ORDER BY started DESC, id DESC LIMIT ?1",
                     -1, &q.s, nullptr);
  sqlite3_bind_int(q.s, 1, limit);
  std::vector<v1::StageRun> out;
  while (sqlite3_step(q.s) == SQLITE_ROW) {
    v1::StageRun run;
    if (run.ParseFromArray(sqlite3_column_blob(q.s, 0), sqlite3_column_bytes(q.s, 0))) {
      out.push_back(std::move(run));
    }
  }
  return out;
}

absl::StatusOr<v1::BaselineMarks> RunStore::GetBaselineMarks() {
  platform::MutexLock l(&mu_);
  v1::BaselineMarks out;
  Stmt p;
  sqlite3_prepare_v2(
      db_, "SELECT class_key, run_id, until, at, by FROM baseline_pins ORDER BY class_key", -1,
      &p.s, nullptr);
  auto text = [](sqlite3_stmt* s, int col) {
    const unsigned char* t = sqlite3_column_text(s, col);
    return t ? std::string(reinterpret_cast<const char*>(t)) : std::string();
  };
  while (sqlite3_step(p.s) == SQLITE_ROW) {
    v1::BaselinePin* pin = out.add_pins();
    pin->set_class_key(text(p.s, 0));
    pin->set_run_id(text(p.s, 1));
    pin->set_until_seconds(sqlite3_column_int64(p.s, 2));
    pin->set_at_seconds(sqlite3_column_int64(p.s, 3));
    pin->set_by(text(p.s, 4));
  }
  Stmt f;
  sqlite3_prepare_v2(db_, "SELECT run_id, at, by FROM baseline_forgotten ORDER BY at, run_id", -1,
                     &f.s, nullptr);
  while (sqlite3_step(f.s) == SQLITE_ROW) {
    v1::ForgottenRun* run = out.add_forgotten();
    run->set_run_id(text(f.s, 0));
    run->set_at_seconds(sqlite3_column_int64(f.s, 1));
    run->set_by(text(f.s, 2));
  }
  return out;
}

absl::Status RunStore::PinBaseline(const v1::BaselinePin& pin) {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_,
                     "INSERT INTO baseline_pins (class_key, run_id, until, at, by) "
                     "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(class_key) DO UPDATE SET "
                     "run_id = ?2, until = ?3, at = ?4, by = ?5",
                     -1, &q.s, nullptr);
  sqlite3_bind_text(q.s, 1, pin.class_key().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(q.s, 2, pin.run_id().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q.s, 3, pin.until_seconds());
  sqlite3_bind_int64(q.s, 4, pin.at_seconds());
  sqlite3_bind_text(q.s, 5, pin.by().c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q.s) != SQLITE_DONE) return SqlError(db_, "pin baseline");
  return absl::OkStatus();
}

absl::Status RunStore::ForgetRun(const v1::ForgottenRun& forgotten) {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_,
                     "INSERT INTO baseline_forgotten (run_id, at, by) VALUES (?1, ?2, ?3) "
                     "ON CONFLICT(run_id) DO NOTHING",
                     -1, &q.s, nullptr);
  sqlite3_bind_text(q.s, 1, forgotten.run_id().c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64(q.s, 2, forgotten.at_seconds());
  sqlite3_bind_text(q.s, 3, forgotten.by().c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(q.s) != SQLITE_DONE) return SqlError(db_, "forget run");
  Stmt d;
  sqlite3_prepare_v2(db_, "DELETE FROM baseline_pins WHERE run_id = ?1", -1, &d.s, nullptr);
  sqlite3_bind_text(d.s, 1, forgotten.run_id().c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(d.s) != SQLITE_DONE) return SqlError(db_, "drop the run's pins");
  return absl::OkStatus();
}

absl::Status RunStore::Unpin(const std::string& class_key) {
  platform::MutexLock l(&mu_);
  Stmt d;
  sqlite3_prepare_v2(db_, "DELETE FROM baseline_pins WHERE class_key = ?1", -1, &d.s, nullptr);
  sqlite3_bind_text(d.s, 1, class_key.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(d.s) != SQLITE_DONE) return SqlError(db_, "unpin");
  if (sqlite3_changes(db_) == 0) {
    return absl::NotFoundError(
        absl::StrCat("class '", class_key, "' has no pin (see `nodeprobe baseline show`)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<v1::StageRun>> RunStore::List(int limit) {
  platform::MutexLock l(&mu_);
  Stmt q;
  sqlite3_prepare_v2(db_, "SELECT record FROM runs ORDER BY started DESC, id DESC LIMIT ?1",
                     -1, &q.s, nullptr);
  sqlite3_bind_int(q.s, 1, limit);
  std::vector<v1::StageRun> out;
  while (sqlite3_step(q.s) == SQLITE_ROW) {
    v1::StageRun run;
    if (!run.ParseFromArray(sqlite3_column_blob(q.s, 0), sqlite3_column_bytes(q.s, 0))) continue;
    run.clear_node_reports();
    run.clear_pairs();
    out.push_back(std::move(run));
  }
  return out;
}

}  // namespace nodeprobe::coordinator
