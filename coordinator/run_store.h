// File: run_store.h
// Every stage run the coordinator executes, kept in one SQLite file (WAL,
// schema versioned). A run is stored when it starts and again when it ends,
// so a coordinator that dies mid-run finds it on restart and marks it ERROR
// "coordinator restarted": runs are never lost or left "running".
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/baseline_service.pb.h"
#include "nodeprobe/v1/service.pb.h"
#include "platform/mutex.h"

struct sqlite3;

namespace nodeprobe::coordinator {

// A node's own report in the newest finished run that holds one: what
// `nodeprobe fleet` shows as its last verdict.
struct LastReport {
  std::string run_id;
  v1::Stage stage = v1::STAGE_UNSPECIFIED;  // the run's stage
  v1::Verdict verdict = v1::VERDICT_UNSPECIFIED;
  int64_t finished = 0;  // unix seconds
  v1::Inventory inventory;  // its inventory probe's version matrix, if it ran
  v1::ConfigReport config;  // the newest RoCE/host settings reported (any run)
};

class RunStore {
 public:
  // Opens (creating) the database and closes out runs left "running".
  static absl::StatusOr<std::unique_ptr<RunStore>> Open(const std::string& path);
  ~RunStore();

  absl::Status Save(const v1::StageRun& run);
  absl::StatusOr<v1::StageRun> Get(const std::string& run_id);
  // Newest first, at most `limit`.
  absl::StatusOr<std::vector<v1::StageRun>> List(int limit);
  // The newest `limit` accepted runs (done, PASS or WARN), whole: what
  // baselines learn from (coordinator/baseline).
  absl::StatusOr<std::vector<v1::StageRun>> AcceptedRuns(int limit);
  // node -> its last report (only finished runs count).
  absl::StatusOr<std::map<std::string, LastReport>> LastReports();

  // What operators said of baselines (baseline_service.proto), kept so
  // every baseline built later honours it.
  absl::StatusOr<v1::BaselineMarks> GetBaselineMarks();
  // A class's pin, replacing the one it had.
  absl::Status PinBaseline(const v1::BaselinePin& pin);
  // The run no longer counts in any baseline; the pins made from it go.
  absl::Status ForgetRun(const v1::ForgottenRun& forgotten);
  // The class's pin goes (NOT_FOUND when it had none).
  absl::Status Unpin(const std::string& class_key);
  // How many runs the last Open() found interrupted.
  int interrupted_on_open() const { return interrupted_; }

 private:
  explicit RunStore(sqlite3* db) : db_(db) {}
  absl::Status Migrate() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status CloseInterrupted() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status SaveNodeConfig(const v1::StageReport& report) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status SaveLocked(const v1::StageRun& run) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // One statement at a time on the connection (gRPC calls arrive on any
  // thread).
  platform::Mutex mu_;
  sqlite3* db_ ABSL_GUARDED_BY(mu_);
  int interrupted_ = 0;  // written by Open() only, before the store is shared
};

// The default database path: /var/lib/nodeprobe/runs.db for root, else
// $XDG_DATA_HOME (or ~/.local/share)/nodeprobe/runs.db.
std::string DefaultDbPath();

}  // namespace nodeprobe::coordinator
