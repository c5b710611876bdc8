// File: storage_profile.cc
// Declares `storage:` (np_profile_section in this folder's CMakeLists):
// compiled into the profile library, so it uses only what that links.
#include "probes/storage/storage_profile.h"

#include "absl/strings/str_cat.h"
#include "probes/framework/profile.h"
#include "probes/framework/profile_section.h"
#include "probes/storage/storage_findings.h"

namespace nodeprobe {
namespace {

absl::Status ReadKey(const ProfileReader& r, const std::string& key, const YAML::Node& v,
                     StorageRules& into) {
  const std::string name = absl::StrCat(StorageRules::kSection, ".", key);
  if (key == "paths") {
    absl::StatusOr<std::vector<std::string>> paths = r.TextList(v, name);
    if (!paths.ok()) return paths.status();
    for (const std::string& p : *paths) {
      if (p[0] != '/')
        return r.Error(v, absl::StrCat(name, ": '", p, "' must be an absolute path"));
    }
    into.paths = *paths;
    return absl::OkStatus();
  }
  // Counts: whole and within what a node can do without filling a disk
  // by mistake (a typo of 10240 for 1024 still fits).
  struct Whole {
    const char* key;
    int* into;
    int min, max;
  };
  const Whole wholes[] = {{"writers", &into.writers, 1, 256},
                          {"block_kb", &into.block_kb, 4, 65536},
                          {"metadata_files", &into.metadata_files, 0, 1000000}};
  for (const Whole& w : wholes) {
    if (key != w.key) continue;
    absl::StatusOr<int64_t> whole = r.Whole(v, name, w.min, w.max);
    if (!whole.ok()) return whole.status();
    if (key == "block_kb" && (*whole % 4) != 0) {
      return r.Error(v, name + " must be a multiple of 4 (direct I/O moves whole 4 KiB pages)");
    }
    *w.into = static_cast<int>(*whole);
    return absl::OkStatus();
  }
  absl::StatusOr<double> n = r.Number(v, name);
  if (!n.ok()) return n.status();
  if (key == "shard_mb") {
    if (*n < 1 || *n > 1048576) return r.Error(v, name + " must be from 1 to 1048576 (1 TiB)");
    into.shard_mb = *n;
    return absl::OkStatus();
  }
  if (*n <= 0) return r.Error(v, name + " must be above 0 (leave it out to only measure)");
  if (key == "checkpoint_write_min_gbps") into.checkpoint_write_min_gbps = *n;
  if (key == "checkpoint_max_s") into.checkpoint_max_s = *n;
  if (key == "read_min_gbps") into.read_min_gbps = *n;
  if (key == "metadata_p99_max_ms") into.metadata_p99_max_ms = *n;
  return absl::OkStatus();
}

}  // namespace

ProfileSection StorageProfileSection() {
  const StorageRules d;  // what applies without a key
  return DeclareSection<StorageRules>(
      {{"storage.paths", "list of absolute directories", "none (the storage probe skips)",
        "checkpoint and dataset filesystems the storage probe measures, each in a scratch "
        "directory it makes and removes"},
       {"storage.shard_mb", "MiB, 1 .. 1048576", absl::StrCat(d.shard_mb),
        "each writer's checkpoint shard (the size a rank saves)"},
       {"storage.writers", "1 .. 256", "one per GPU, else 8",
        "parallel checkpoint writers (and readers, and metadata threads)"},
       {"storage.block_kb", "KiB, multiple of 4", absl::StrCat(d.block_kb),
        "bytes per write and read call"},
       {"storage.metadata_files", "0 .. 1000000 (0: no metadata test)",
        absl::StrCat(d.metadata_files),
        "small files created, stat'ed, opened and removed, in one directory and across "
        "directories"},
       {"storage.checkpoint_write_min_gbps", "Gb/s", "not judged",
        "all writers' bytes over the checkpoint's completion time at least this, "
        "else STORAGE_WRITE_SLOW"},
       {"storage.checkpoint_max_s", "seconds", "not judged",
        "the slowest writer's shard written and fsync'ed within this, "
        "else STORAGE_CHECKPOINT_SLOW"},
       {"storage.read_min_gbps", "Gb/s", "not judged",
        "reading the shards back cold, in order and in random order, at least this, "
        "else STORAGE_READ_SLOW"},
       {"storage.metadata_p99_max_ms", "milliseconds", "not judged",
        "each metadata operation's p99 latency at most this, else STORAGE_METADATA_SLOW"}},
      ReadKey);
}

}  // namespace nodeprobe
