// File: run_store.h
// Every stage run the coordinator executes, kept in one SQLite file (WAL,
// schema versioned). A run is stored when it starts and again when it ends,
// so a coordinator that dies mid-run finds it on restart and marks it ERROR
// "coordinator restarted": runs are never lost or left "running".
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/service.pb.h"

struct sqlite3;

namespace nodeprobe::coordinator {

class RunStore {
 public:
  // Opens (creating) the database and closes out runs left "running".
  static absl::StatusOr<std::unique_ptr<RunStore>> Open(const std::string& path);
  ~RunStore();

  absl::Status Save(const v1::StageRun& run);
  absl::StatusOr<v1::StageRun> Get(const std::string& run_id);
  // Newest first, at most `limit`.
  absl::StatusOr<std::vector<v1::StageRun>> List(int limit);
  // How many runs the last Open() found interrupted.
  int interrupted_on_open() const { return interrupted_; }

 private:
  explicit RunStore(sqlite3* db) : db_(db) {}
  absl::Status Migrate();
  absl::Status CloseInterrupted();

  std::mutex mu_;
  sqlite3* db_;
  int interrupted_ = 0;
};

// The default database path: /var/lib/nodeprobe/runs.db for root, else
// $XDG_DATA_HOME (or ~/.local/share)/nodeprobe/runs.db.
std::string DefaultDbPath();

}  // namespace nodeprobe::coordinator
