// File: collective_math.h
// The arithmetic of an nccl-tests run, shared by the rank that runs a
// collective and the judge that merges the ranks: which sizes a sweep
// visits, how a size in bytes becomes the counts NCCL is called with
// (nccl-tests' getCollByteCount per collective), the data each rank puts
// in and what each must get back (nccl-tests -c), and algbw/busbw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "nodeprobe/v1/nccl.pb.h"

namespace nodeprobe::nccl {

// The seven collectives in nccl-tests' order of its binaries.
const std::vector<std::string>& AllCollectives();
bool IsCollective(std::string_view name);

// Defaults when the options leave them 0: 1 MiB to 256 MiB by x4, 5 warm-up
// and 20 timed iterations, 60 s per size.
v1::CollectiveOptions WithDefaults(v1::CollectiveOptions o);
// INVALID_ARGUMENT naming the bad field and the fix.
absl::Status ValidateOptions(const v1::CollectiveOptions& o);
// The sizes the options visit (a sweep min..max by step_factor, or the
// list), in bytes, ascending.
std::vector<uint64_t> SweepSizes(const v1::CollectiveOptions& o);

// Elements of float (4 bytes) per rank, as nccl-tests derives them from a
// size: `param` is the count NCCL is called with (per peer for alltoall,
// per rank for all_gather/reduce_scatter), `send` and `recv` the buffer
// lengths. `bytes` is the size nccl-tests prints: max(send, recv) x 4.
struct CollectiveShape {
  uint64_t send = 0;
  uint64_t recv = 0;
  uint64_t param = 0;
  uint64_t bytes = 0;
};
CollectiveShape ShapeOf(std::string_view collective, uint64_t size_bytes, int nranks);

// What rank `rank` puts at element `i` of its send buffer: 1..17, so every
// partial float sum over up to ~986 000 ranks is exact in any order.
float InputValue(int rank, uint64_t i);
// For collectives that only move data (broadcast, all_gather, alltoall,
// sendrecv): a value unique to the rank at every element (for up to 2^23
// ranks), so a chunk from the wrong rank or a missed in-place write shows;
// InputValue repeats every 17 ranks.
float UniqueInputValue(int rank, uint64_t i);
// What rank `rank` puts at element `i` for `collective`: InputValue for the
// reducing ones (exact sums), UniqueInputValue for the rest.
float InputFor(std::string_view collective, int rank, uint64_t i);
// The exact sum of InputValue over ranks 0..nranks-1 at element `i`.
uint64_t InputSum(int nranks, uint64_t i);
// What rank `rank` must hold at element `i` of its receive buffer after
// `collective` (float, sum, root 0); nullopt where nothing is defined
// (reduce on a non-root rank).
std::optional<float> ExpectedValue(std::string_view collective, const CollectiveShape& shape,
                                   int nranks, int rank, uint64_t i);

// GB/s (10^9 bytes/s) from a size and a time; busbw = algbw x BusBwFactor.
double AlgBwGbps(uint64_t bytes, double time_us);

// nccl-tests runs these in place too; alltoall and sendrecv are not run
// in place here (send and receive on one buffer is a data race NCCL does
// not define).
bool RunsInPlace(std::string_view collective);

}  // namespace nodeprobe::nccl
