// File: storage_io.h
// The storage probe's three measurements, each in a directory of its own
// (a ScratchDir), by definitions a fio or mdtest user can check:
//  - checkpoint write: `writers` threads start together, each writes its
//    own shard file with `block` sized pwrite calls (O_DIRECT where the
//    filesystem takes it) and fsyncs it; the checkpoint's completion time
//    is from the common start to the slowest writer's fsync, its bandwidth
//    all shards over that time (fio's aggregate, with end_fsync=1);
//  - dataset read: the same files read back cold, one thread per file,
//    in order and then in a random order of whole blocks (each block once);
//    cold means our files' pages dropped with posix_fadvise(DONTNEED) after
//    the fsync, and how much stayed resident is measured (mincore) and said;
//  - metadata: create (4 KiB written), stat, open+close and unlink of many
//    small files by `threads` threads, all in one directory and then spread
//    over directories of 100; operations per second and latency per call.
// Rates are Gb/s (10^9 bits per second) as every nodeprobe rate. Each
// phase stops at the deadline with DEADLINE_EXCEEDED saying how far it got.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace nodeprobe::storage {

struct IoPlan {
  int writers = 8;
  uint64_t shard_bytes = 1ull << 30;
  uint32_t block_bytes = 1u << 20;
  absl::Time deadline = absl::InfiniteFuture();
};

// Latency of calls in milliseconds: p50 and p99 by the one percentile rule
// (platform/statistics.h: the sorted sample at 0-based index ceil(q n)),
// and the largest.
struct Latency {
  uint64_t count = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};
Latency Summarize(std::vector<double> ms);

struct WriteFigures {
  bool direct = false;         // O_DIRECT taken by the filesystem
  std::string direct_refused;  // why not, when not
  std::vector<std::string> files;
  absl::Time started;  // the writers' common start, by this node's clock
  uint64_t bytes = 0;
  double checkpoint_s = 0;  // common start to the slowest fsync
  double gbps = 0;
  Latency calls;
};
absl::StatusOr<WriteFigures> WriteCheckpoint(const std::string& dir, const IoPlan& plan);

enum class ReadOrder { kSequential, kRandom };
struct ReadFigures {
  std::string cache;  // how cold the files were, in words
  uint64_t bytes = 0;
  double seconds = 0;
  double gbps = 0;
  Latency calls;
};
// Reads `written`'s files back (O_DIRECT when they were written so).
absl::StatusOr<ReadFigures> ReadBack(const WriteFigures& written, const IoPlan& plan,
                                     ReadOrder order);

struct MetadataOp {
  std::string op;      // create, stat, open-close, unlink
  std::string layout;  // "one directory", "across directories"
  uint64_t count = 0;
  double ops_per_s = 0;
  Latency latency;
};
// Both layouts, four operations each.
absl::StatusOr<std::vector<MetadataOp>> MeasureMetadata(const std::string& dir, int files,
                                                        int threads, absl::Time deadline);

}  // namespace nodeprobe::storage
