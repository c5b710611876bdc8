// Reads what a job's ranks asked NCCL to do, from NCCL's own output with
// NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,COLL: the communicators each
// process joined ("comm 0x… rank R nranks N cudaDev D … commId 0x… - Init
// COMPLETE") and every operation it issued on them, in its order
// ("AllReduce: opCount 1a sendbuff … count C datatype D op O root R comm
// 0x… [nranks=N] stream …"), and the P2P/COLL events of NCCL's example
// profiler plugin (its Chrome-trace lines: CommHash, Rank, Peer, Count,
// Datatype). `workload from-nccl-log` builds a replayable step from it
// (logged_step.h).
//
// Streams: a log of any size is read in a fixed memory. Each rank keeps
// its last kTailOps operations (the steady steps a replay wants) and counts
// the rest; the lists of processes, communicators and distinct operations
// are capped, and a log past a cap is refused with the reason, never read
// in part as if whole. A line that is not one of these is skipped.
#pragma once

#include <cstdint>
#include <deque>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"

namespace nodeprobe::workload {

inline constexpr size_t kTailOps = 8192;
inline constexpr size_t kMaxLoggedRanks = 4096;
inline constexpr size_t kMaxEndpoints = 65536;
inline constexpr size_t kMaxDistinctOps = 1 << 20;
inline constexpr size_t kMaxLogLine = 64 << 10;

// One communicator as one process holds it (a pointer in that process).
struct CollEndpoint {
  std::string host;
  uint32_t pid = 0;
  std::string comm;     // its pointer ("0x2152b590") or the trace's CommHash
  std::string comm_id;  // the commId every member prints; "" when no Init line said it
  int rank = -1;        // in the communicator; -1: no Init line
  int nranks = 0;
  int rank_index = -1;  // CollLogReader::ranks() entry it belongs to
  uint64_t ops = 0;
};

// A process and GPU that issued operations: a rank of the job.
struct CollRank {
  std::string host;
  uint32_t pid = 0;
  int cuda_dev = -1;  // -1: no Init line named it
  uint64_t ops = 0;
  std::deque<uint32_t> tail;  // its last kTailOps operations (CollOp indices), in order
  // Per endpoint, the operations it issued on it before the tail: with the
  // tail, any op's ordinal on its communicator.
  std::map<int, uint64_t> before_tail;
};

// A distinct operation: what was asked, on which endpoint.
struct CollOp {
  int endpoint = 0;
  std::string name;  // NCCL's: "AllReduce", "Send", ...
  uint64_t count = 0;
  int datatype = -1;   // NCCL's ncclDataType_t; -1 unknown
  int root = 0;        // a root's rank, or a send's or receive's peer, in the communicator
  uint64_t bytes = 0;  // count x the datatype's size (0 when unknown)
  bool operator<(const CollOp& o) const {
    return std::tie(endpoint, name, count, datatype, root) <
           std::tie(o.endpoint, o.name, o.count, o.datatype, o.root);
  }
};

// Bytes of NCCL's datatype `code` (0 int8 … 9 bfloat16, 10/11 fp8); 0 unknown.
int NcclDatatypeBytes(int code);

class CollLogReader {
 public:
  // One line of a log (the srun "3: ", MPI "[1,3]<stdout>:" and similar
  // prefixes are allowed before NCCL's "host:pid:tid").
  void AddLine(std::string_view line);
  // Reads `in` to its end, line by line (a line past kMaxLogLine is cut).
  void AddStream(std::istream& in);

  // OK, or why the log cannot be read whole (a cap was hit).
  const absl::Status& status() const { return status_; }
  const std::vector<CollEndpoint>& endpoints() const { return endpoints_; }
  const std::vector<CollRank>& ranks() const { return ranks_; }
  const std::vector<CollOp>& ops() const { return ops_; }
  uint64_t lines() const { return lines_; }
  uint64_t op_lines() const { return op_lines_; }
  uint64_t init_lines() const { return init_lines_; }
  // Lines that looked like an operation but were cut or garbled.
  uint64_t garbled_lines() const { return garbled_; }

 private:
  void Init(const std::string& host, uint32_t pid, const std::string& comm,
            const std::string& comm_id, int rank, int nranks, int cuda_dev);
  void Operation(const std::string& host, uint32_t pid, const std::string& comm, CollOp op,
                 int nranks, int trace_rank);
  int Endpoint(const std::string& host, uint32_t pid, const std::string& comm);
  int Rank(const std::string& host, uint32_t pid, int cuda_dev);
  void Fail(std::string why);

  absl::Status status_;
  std::vector<CollEndpoint> endpoints_;
  std::map<std::tuple<std::string, uint32_t, std::string>, int> endpoint_index_;
  std::vector<CollRank> ranks_;
  std::map<std::tuple<std::string, uint32_t, int>, int> rank_index_;
  std::vector<CollOp> ops_;
  std::map<CollOp, uint32_t> op_index_;
  std::map<std::pair<uint32_t, std::string>, std::string> initialized_;  // (pid, comm) -> host
  uint64_t lines_ = 0, op_lines_ = 0, init_lines_ = 0, garbled_ = 0;
};

}  // namespace nodeprobe::workload
