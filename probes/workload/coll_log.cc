#include "probes/workload/coll_log.h"

#include <re2/re2.h>

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace nodeprobe::workload {
namespace {

// NCCL's "host:pid:tid [dev] NCCL INFO message", after any launcher prefix.
const RE2& Prefixed() {
  static const RE2 re(
      "(?:^|[\\s)>:\\]])([A-Za-z0-9._-]+):(\\d+):\\d+ (?:\\[\\d+\\] )?NCCL INFO (.*)");
  return re;
}
// init.cc's line, with or without the function name in front (2.27:
// "ncclCommInitRankConfig comm 0x… rank 0 nranks 2 cudaDev 0 nvmlDev 0
// busId 17000 commId 0x… - Init COMPLETE").
const RE2& InitLine() {
  static const RE2 re(
      "comm (0x[0-9a-f]+) rank (\\d+) nranks (\\d+) cudaDev (\\d+)"
      ".* commId (0x[0-9a-f]+) - Init (?:START|COMPLETE)");
  return re;
}
// enqueue.cc's COLL line (every NCCL 2.x).
const RE2& OpLine() {
  static const RE2 re(
      "^(\\w+): opCount [0-9a-f]+ sendbuff \\S+ recvbuff \\S+ count (\\d+) datatype (\\d+) op "
      "\\d+ root (-?\\d+) comm (0x[0-9a-f]+|\\(nil\\)) \\[nranks=(\\d+)\\]");
  return re;
}
const RE2& OpStart() {
  static const RE2 re("^(\\w+): opCount ");
  return re;
}
// The example profiler plugin's begin event of an operation.
const RE2& TraceLine() {
  static const RE2 re(
      "\"name\": \"(\\w+)\", \"cat\": \"(?:P2P|COLL)\", \"ph\": \"b\".*\"pid\": (\\d+).*"
      "\"CommHash\": (\\d+), \"Rank\": (\\d+), (?:\"Peer\": (\\d+), )?(?:\"Root\": (\\d+), )?"
      "\"Count\": (\\d+), \"Datatype\": \"(\\w+)\"");
  return re;
}

int TraceDatatype(const std::string& name) {
  static const std::map<std::string, int> kCodes = {
      {"ncclInt8", 0},    {"ncclUint8", 1},   {"ncclInt32", 2},   {"ncclUint32", 3},
      {"ncclInt64", 4},   {"ncclUint64", 5},  {"ncclFloat16", 6}, {"ncclFloat32", 7},
      {"ncclFloat64", 8}, {"ncclBfloat16", 9}};
  auto it = kCodes.find(name);
  return it == kCodes.end() ? -1 : it->second;
}

}  // namespace

int NcclDatatypeBytes(int code) {
  switch (code) {
    case 0:
    case 1:
    case 10:
    case 11:
      return 1;
    case 6:
    case 9:
      return 2;
    case 2:
    case 3:
    case 7:
      return 4;
    case 4:
    case 5:
    case 8:
      return 8;
    default:
      return 0;
  }
}

void CollLogReader::Fail(std::string why) {
  if (status_.ok()) status_ = absl::ResourceExhaustedError(std::move(why));
}

int CollLogReader::Rank(const std::string& host, uint32_t pid, int cuda_dev) {
  const auto key = std::make_tuple(host, pid, cuda_dev);
  auto it = rank_index_.find(key);
  if (it != rank_index_.end()) return it->second;
  if (ranks_.size() >= kMaxLoggedRanks) {
    Fail(absl::StrCat("the log holds more than ", kMaxLoggedRanks,
                      " ranks: give the logs of one job of at most that many"));
    return -1;
  }
  ranks_.push_back({.host = host, .pid = pid, .cuda_dev = cuda_dev});
  return rank_index_[key] = static_cast<int>(ranks_.size()) - 1;
}

int CollLogReader::Endpoint(const std::string& host, uint32_t pid, const std::string& comm) {
  const auto key = std::make_tuple(host, pid, comm);
  auto it = endpoint_index_.find(key);
  if (it != endpoint_index_.end()) return it->second;
  if (endpoints_.size() >= kMaxEndpoints) {
    Fail(absl::StrCat("the log holds more than ", kMaxEndpoints, " communicators"));
    return -1;
  }
  endpoints_.push_back({.host = host, .pid = pid, .comm = comm});
  return endpoint_index_[key] = static_cast<int>(endpoints_.size()) - 1;
}

void CollLogReader::Init(const std::string& host, uint32_t pid, const std::string& comm,
                         const std::string& comm_id, int rank, int nranks, int cuda_dev) {
  ++init_lines_;
  const auto key = std::make_tuple(host, pid, comm);
  auto it = endpoint_index_.find(key);
  // A pointer freed and reused by a later communicator is a new one.
  if (it != endpoint_index_.end() && endpoints_[static_cast<size_t>(it->second)].comm_id != comm_id)
    endpoint_index_.erase(it);
  const int e = Endpoint(host, pid, comm);
  if (e < 0) return;
  CollEndpoint& ep = endpoints_[static_cast<size_t>(e)];
  ep.comm_id = comm_id;
  ep.rank = rank;
  ep.nranks = nranks;
  ep.rank_index = Rank(host, pid, cuda_dev);
  initialized_[{pid, comm}] = host;
}

void CollLogReader::Operation(const std::string& host, uint32_t pid, const std::string& comm,
                              CollOp op, int nranks, int trace_rank) {
  ++op_lines_;
  // Output spliced into NCCL's line ("...  -1mew0:64904:64904 [1] NCCL
  // INFO AllReduce") glues text to the host: the process's own host, when
  // it ends the glued name and holds that communicator.
  auto init = initialized_.find({pid, comm});
  const bool glued =
      init != initialized_.end() && init->second != host && host.size() > init->second.size() &&
      host.compare(host.size() - init->second.size(), std::string::npos, init->second) == 0;
  const int e = Endpoint(glued ? init->second : host, pid, comm);
  if (e < 0) return;
  CollEndpoint& ep = endpoints_[static_cast<size_t>(e)];
  if (ep.nranks == 0) ep.nranks = nranks;
  if (ep.rank_index < 0) {
    // No Init line: the process is the rank (a trace names its rank, and
    // one process may drive several).
    ep.rank_index = Rank(host, pid, trace_rank);
    if (trace_rank >= 0) ep.rank = trace_rank;
    if (ep.rank_index < 0) return;
  }
  op.endpoint = e;
  op.bytes = op.count * static_cast<uint64_t>(NcclDatatypeBytes(op.datatype));
  auto [it, added] = op_index_.emplace(op, static_cast<uint32_t>(ops_.size()));
  if (added) {
    if (ops_.size() >= kMaxDistinctOps) {
      op_index_.erase(it);
      Fail(absl::StrCat("the log holds more than ", kMaxDistinctOps,
                        " distinct operations: not the repeating steps of a training job"));
      return;
    }
    ops_.push_back(op);
  }
  ++ep.ops;
  CollRank& r = ranks_[static_cast<size_t>(ep.rank_index)];
  ++r.ops;
  r.tail.push_back(it->second);
  if (r.tail.size() > kTailOps) {
    ++r.before_tail[ops_[r.tail.front()].endpoint];
    r.tail.pop_front();
  }
}

void CollLogReader::AddLine(std::string_view raw) {
  ++lines_;
  if (!status_.ok()) return;
  const re2::StringPiece line(raw.data(), std::min(raw.size(), kMaxLogLine));
  std::string host, message;
  uint32_t pid = 0;
  if (RE2::PartialMatch(line, Prefixed(), &host, &pid, &message)) {
    std::string comm, comm_id, name;
    int rank = 0, nranks = 0, dev = 0, datatype = 0, root = 0;
    uint64_t count = 0;
    if (RE2::PartialMatch(message, InitLine(), &comm, &rank, &nranks, &dev, &comm_id)) {
      Init(host, pid, comm, comm_id, rank, nranks, dev);
    } else if (RE2::PartialMatch(message, OpLine(), &name, &count, &datatype, &root, &comm,
                                 &nranks)) {
      Operation(host, pid, comm, {.name = name, .count = count, .datatype = datatype, .root = root},
                nranks, -1);
    } else if (RE2::PartialMatch(message, OpStart(), &name) && name != "NCCL") {
      ++garbled_;  // "AllReduce: opCount" cut before its communicator
    }
    return;
  }
  std::string name, hash, peer, root, type;
  int rank = 0;
  uint64_t count = 0;
  if (RE2::PartialMatch(line, TraceLine(), &name, &pid, &hash, &rank, &peer, &root, &count,
                        &type)) {
    int p = 0;
    if (!peer.empty()) absl::SimpleAtoi(peer, &p);
    if (!root.empty()) absl::SimpleAtoi(root, &p);
    // A trace names no host; its communicator is its hash, a rank of it
    // one GPU of the process.
    CollOp op{.name = name, .count = count, .datatype = TraceDatatype(type), .root = p};
    const int e = Endpoint("trace", pid, absl::StrCat(hash, "/", rank));
    if (e >= 0 && endpoints_[static_cast<size_t>(e)].comm_id.empty()) {
      endpoints_[static_cast<size_t>(e)].comm_id = absl::StrCat("hash:", hash);
      endpoints_[static_cast<size_t>(e)].rank = rank;
    }
    Operation("trace", pid, absl::StrCat(hash, "/", rank), op, 0, rank);
  }
}

void CollLogReader::AddStream(std::istream& in) {
  // In fixed pieces: a log without newlines costs kMaxLogLine, not its size.
  std::vector<char> piece(1 << 16);
  std::string line;
  bool cut = false;  // the rest of an over-long line is skipped
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const std::string_view got(piece.data(), static_cast<size_t>(in.gcount()));
    size_t from = 0;
    while (from < got.size()) {
      const size_t nl = got.find('\n', from);
      const std::string_view part = got.substr(from, nl == std::string_view::npos ? nl : nl - from);
      if (!cut) {
        line.append(part.substr(0, kMaxLogLine - std::min(kMaxLogLine, line.size())));
        cut = line.size() >= kMaxLogLine;
      }
      if (nl == std::string_view::npos) break;
      AddLine(line);
      line.clear();
      cut = false;
      from = nl + 1;
    }
  }
  if (!line.empty()) AddLine(line);
}

}  // namespace nodeprobe::workload
