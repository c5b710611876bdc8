#include "probes/workload/nccl_replay.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "platform/nccl_api.h"
#include "platform/statistics.h"
#include "probes/workload/replay_timing.h"

namespace nodeprobe::workload {
namespace {

using Clock = ReplayClock;
using platform::kCudaErrorNotReady;
using platform::kCudaSuccess;
using platform::kNcclFloat32;
using platform::kNcclInProgress;
using platform::kNcclSuccess;
using platform::kNcclSum;

struct Comm {
  platform::NcclComm comm = nullptr;
  std::string name;  // "tp", or a logged communicator's
  std::vector<int> members;
  int IndexOf(int global) const {
    return static_cast<int>(std::find(members.begin(), members.end(), global) - members.begin());
  }
};

class NcclRank {
 public:
  NcclRank(const platform::NcclApi& api, int rank, absl::Duration op_timeout)
      : a_(api), rank_(rank), op_timeout_(op_timeout) {}
  ~NcclRank() {
    for (auto& [group, c] : comms_) {
      if (c.comm != nullptr) (aborted_ ? a_.ncclCommAbort : a_.ncclCommDestroy)(c.comm);
    }
    for (void* p : memory_) a_.cudaFree(p);
    for (platform::CudaStream s : {main_, overlap_}) {
      if (s != nullptr) a_.cudaStreamDestroy(s);
    }
  }

  absl::Status Open(int gpu) {
    int gpus = 0;
    const int rc = a_.cudaGetDeviceCount(&gpus);
    if (rc != kCudaSuccess || gpus == 0) {
      return absl::FailedPreconditionError(platform::NoGpuReason(a_, rc));
    }
    if (gpu >= gpus) {
      return absl::FailedPreconditionError(
          absl::StrCat("rank ", rank_, " needs GPU ", gpu, "; this node has ", gpus));
    }
    if (absl::Status s = Cuda(a_.cudaSetDevice(gpu), "cudaSetDevice"); !s.ok()) return s;
    for (platform::CudaStream* s : {&main_, &overlap_}) {
      if (absl::Status st = Cuda(a_.cudaStreamCreate(s), "cudaStreamCreate"); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  // Each group's communicator: its first member makes the id and sets it
  // in the store; the others wait for it there.
  absl::Status Join(const Placement& placement, gloo::rendezvous::Store& store) {
    for (auto& [group, name, m] : JoinOrder(placement, rank_)) {
      const std::string key = absl::StrCat("nccl/", name, "/", absl::StrJoin(m, ","));
      platform::NcclUniqueId id;
      try {
        if (m[0] == rank_) {
          if (absl::Status s = Nccl(a_.ncclGetUniqueId(&id), "ncclGetUniqueId"); !s.ok()) return s;
          store.set(key, std::vector<char>(id.internal, id.internal + sizeof(id.internal)));
        } else {
          const std::vector<char> v = store.get(key);
          if (v.size() != sizeof(id.internal)) {
            return absl::UnavailableError(
                absl::StrCat("the ", key, " id has ", v.size(), " bytes"));
          }
          std::memcpy(id.internal, v.data(), v.size());
        }
      } catch (const std::exception& e) {
        return absl::UnavailableError(absl::StrCat("rank ", rank_, ": ", key, ": ", e.what()));
      }
      Comm& c = comms_[group];
      c.name = name;
      c.members = std::move(m);
      if (absl::Status s = Nccl(a_.ncclCommInitRank(&c.comm, static_cast<int>(c.members.size()), id,
                                                    c.IndexOf(rank_)),
                                absl::StrCat("ncclCommInitRank (", name, ")"));
          !s.ok()) {
        return absl::UnavailableError(s.message());
      }
    }
    return absl::OkStatus();
  }

  absl::StatusOr<ReplayReport> Run(const std::vector<Op>& program, int warmup, int steps,
                                   const std::function<void(int)>& at_step);

 private:
  // One step being measured: its figures, and the overlapped ops' events.
  struct StepTimer {
    RankStep step;
    std::vector<std::pair<size_t, std::pair<platform::CudaEvent, platform::CudaEvent>>> timed;
  };
  // Runs op i (and the receive fused with it): how many ops it ran.
  absl::StatusOr<size_t> RunOp(const std::vector<Op>& program, size_t i, const std::string& where,
                               StepTimer* t);

  absl::Status Cuda(int rc, const char* what) {
    if (rc == kCudaSuccess) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, ": ", a_.cudaGetErrorString(rc)));
  }
  absl::Status Nccl(int rc, absl::string_view what) {
    if (rc == kNcclSuccess) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, ": ", a_.ncclGetErrorString(rc)));
  }

  // Device buffers for op `index`, kept across steps.
  absl::StatusOr<std::pair<float*, float*>> Buffers(size_t index, size_t in, size_t out) {
    auto it = buffers_.find(index);
    if (it != buffers_.end()) return it->second;
    void* a = nullptr;
    void* b = nullptr;
    if (absl::Status s = Cuda(a_.cudaMalloc(&a, std::max<size_t>(in, 1) * 4), "cudaMalloc");
        !s.ok())
      return s;
    memory_.push_back(a);
    if (absl::Status s = Cuda(a_.cudaMalloc(&b, std::max<size_t>(out, 1) * 4), "cudaMalloc");
        !s.ok())
      return s;
    memory_.push_back(b);
    return buffers_[index] = {static_cast<float*>(a), static_cast<float*>(b)};
  }

  // Enqueues op `index` on `stream`.
  absl::Status Enqueue(const Op& op, size_t index, platform::CudaStream stream);

  // Until `stream` is idle; an asynchronous NCCL error or the op timeout
  // aborts every communicator.
  absl::Status Wait(platform::CudaStream stream, const std::string& what) {
    const absl::Time deadline = absl::Now() + op_timeout_;
    while (true) {
      const int q = a_.cudaStreamQuery(stream);
      if (q == kCudaSuccess) return absl::OkStatus();
      if (q != kCudaErrorNotReady) return Cuda(q, "cudaStreamQuery");
      for (auto& [key, c] : comms_) {
        int async = kNcclSuccess;
        a_.ncclCommGetAsyncError(c.comm, &async);
        if (async != kNcclSuccess && async != kNcclInProgress) {
          aborted_ = true;
          return absl::InternalError(absl::StrCat(what, ": NCCL reported an asynchronous error (",
                                                  c.name, "): ", a_.ncclGetErrorString(async)));
        }
      }
      if (absl::Now() >= deadline) {
        aborted_ = true;
        return absl::DeadlineExceededError(
            absl::StrCat(what, " did not finish in ", absl::FormatDuration(op_timeout_)));
      }
      std::this_thread::yield();
    }
  }

  const platform::NcclApi& a_;
  const int rank_;
  const absl::Duration op_timeout_;
  std::map<int, Comm> comms_;  // by CommKey
  std::map<size_t, std::pair<float*, float*>> buffers_;
  std::vector<void*> memory_;
  platform::CudaStream main_ = nullptr, overlap_ = nullptr;
  bool aborted_ = false;
};

absl::Status NcclRank::Enqueue(const Op& op, size_t index, platform::CudaStream stream) {
  auto found = comms_.find(CommKey(op));
  if (found == comms_.end()) return absl::OkStatus();  // a group of one: nothing moves
  const Comm& c = found->second;
  const int size = static_cast<int>(c.members.size());
  const bool p2p = op.kind == OpKind::kSend || op.kind == OpKind::kRecv;
  const size_t n = Elements(op.bytes, p2p ? 1 : size);
  const size_t share = n / static_cast<size_t>(size);
  const size_t in = op.kind == OpKind::kAllGather ? share : n;
  const size_t out = op.kind == OpKind::kAllGather || op.kind == OpKind::kAllToAll ? n
                     : op.kind == OpKind::kReduceScatter                           ? share
                                                                                   : 0;
  absl::StatusOr<std::pair<float*, float*>> b = Buffers(index, in, out);
  if (!b.ok()) return b.status();
  auto [send, recv] = *b;
  switch (op.kind) {
    case OpKind::kAllReduce:
      return Nccl(a_.ncclAllReduce(send, send, n, kNcclFloat32, kNcclSum, c.comm, stream),
                  "ncclAllReduce");
    case OpKind::kAllGather:
      return Nccl(a_.ncclAllGather(send, recv, share, kNcclFloat32, c.comm, stream),
                  "ncclAllGather");
    case OpKind::kReduceScatter:
      return Nccl(a_.ncclReduceScatter(send, recv, share, kNcclFloat32, kNcclSum, c.comm, stream),
                  "ncclReduceScatter");
    case OpKind::kAllToAll: {
      // As NCCL's own all-to-all: a send and a receive with every member.
      absl::Status st = Nccl(a_.ncclGroupStart(), "ncclGroupStart");
      for (int p = 0; p < size && st.ok(); ++p) {
        st =
            Nccl(a_.ncclSend(send + p * share, share, kNcclFloat32, p, c.comm, stream), "ncclSend");
        if (st.ok()) {
          st = Nccl(a_.ncclRecv(recv + p * share, share, kNcclFloat32, p, c.comm, stream),
                    "ncclRecv");
        }
      }
      absl::Status end = Nccl(a_.ncclGroupEnd(), "ncclGroupEnd");
      return st.ok() ? end : st;
    }
    case OpKind::kBroadcast:
      return Nccl(a_.ncclBroadcast(send, send, n, kNcclFloat32, c.IndexOf(op.peer), c.comm, stream),
                  "ncclBroadcast");
    case OpKind::kSend:  // inside the caller's group (RunOp)
      return Nccl(a_.ncclSend(send, n, kNcclFloat32, c.IndexOf(op.peer), c.comm, stream),
                  "ncclSend");
    case OpKind::kRecv:
      return Nccl(a_.ncclRecv(send, n, kNcclFloat32, c.IndexOf(op.peer), c.comm, stream),
                  "ncclRecv");
    case OpKind::kCompute:
    case OpKind::kWait:
      return absl::OkStatus();
  }
  return absl::OkStatus();
}

absl::StatusOr<size_t> NcclRank::RunOp(const std::vector<Op>& program, size_t i,
                                       const std::string& where, StepTimer* t) {
  const Op& op = program[i];
  const Clock::time_point at = Clock::now();
  if (op.kind == OpKind::kCompute) {
    SpinFor(at, op.compute_ms);
    t->step.op_ms[i] = MsSince(at);
    return 1;
  }
  if (op.overlapped) {  // timed by events on its stream, read at the step's end
    platform::CudaEvent begin = nullptr, end = nullptr;
    absl::Status st = Cuda(a_.cudaEventCreate(&begin), "cudaEventCreate");
    if (st.ok()) st = Cuda(a_.cudaEventCreate(&end), "cudaEventCreate");
    if (st.ok()) t->timed.push_back({i, {begin, end}});
    if (st.ok()) st = Cuda(a_.cudaEventRecord(begin, overlap_), "cudaEventRecord");
    if (st.ok()) st = Enqueue(op, i, overlap_);
    if (st.ok()) st = Cuda(a_.cudaEventRecord(end, overlap_), "cudaEventRecord");
    if (!st.ok()) return st;
    return 1;
  }
  size_t ran = 1;
  absl::Status st;
  if (op.kind == OpKind::kWait) {
    st = Wait(overlap_, where);
  } else if (op.kind == OpKind::kSend || op.kind == OpKind::kRecv) {
    // A send and the receive after it go as one group, as Megatron-LM's
    // 1F1B batches them (send_forward_recv_backward): neither end then
    // waits for its own send to be received before it receives.
    const bool fused = op.kind == OpKind::kSend && i + 1 < program.size() &&
                       program[i + 1].kind == OpKind::kRecv && !program[i + 1].overlapped;
    st = Nccl(a_.ncclGroupStart(), "ncclGroupStart");
    if (st.ok()) st = Enqueue(op, i, main_);
    if (st.ok() && fused) st = Enqueue(program[i + 1], i + 1, main_);
    const absl::Status end = Nccl(a_.ncclGroupEnd(), "ncclGroupEnd");
    if (st.ok()) st = end;
    if (st.ok()) st = Wait(main_, where);
    ran = fused ? 2 : 1;
  } else {
    st = Enqueue(op, i, main_);
    if (st.ok()) st = Wait(main_, where);
  }
  if (!st.ok()) return st;
  // The time goes to the op that waited: a fused pair's receive.
  t->step.op_ms[i + ran - 1] = MsSince(at);
  t->step.exposed_ms += MsSince(at);
  return ran;
}

absl::StatusOr<ReplayReport> NcclRank::Run(const std::vector<Op>& program, int warmup, int steps,
                                           const std::function<void(int)>& at_step) {
  ReplayReport report;
  report.library = "nccl";
  int code = 0;
  a_.ncclGetVersion(&code);
  report.version = platform::NcclVersionString(code);
  report.transport = "NCCL's choice (its log says which: NCCL_DEBUG=INFO)";
  for (int s = 0; s < warmup + steps; ++s) {
    StepTimer t;
    t.step.op_ms.assign(program.size(), 0);
    if (at_step && s >= warmup) at_step(s - warmup);
    const Clock::time_point start = Clock::now();
    absl::Status st;
    for (size_t i = 0; i < program.size() && st.ok();) {
      const std::string where =
          absl::StrCat("rank ", rank_, " step ", s, " op ", i, " (", program[i].label, ")");
      absl::StatusOr<size_t> ran = RunOp(program, i, where, &t);
      if (!ran.ok())
        st = absl::Status(ran.status().code(), absl::StrCat(where, ": ", ran.status().message()));
      i += ran.ok() ? *ran : 1;
    }
    if (st.ok()) st = Wait(overlap_, absl::StrCat("rank ", rank_, " step ", s, " end"));
    t.step.step_ms = MsSince(start);
    for (auto& [i, events] : t.timed) {
      float ms = 0;
      if (st.ok()) a_.cudaEventElapsedTime(&ms, events.first, events.second);
      t.step.op_ms[i] = ms;
      a_.cudaEventDestroy(events.first);
      a_.cudaEventDestroy(events.second);
    }
    if (!st.ok()) return st;
    if (s >= warmup) report.steps.push_back(std::move(t.step));
  }
  if (at_step) at_step(steps);
  // Each kind of collective alone (IsolatedOps), after the steps.
  report.isolated_ms.assign(program.size(), 0);
  for (size_t i : IsolatedOps(program)) {
    const std::string where =
        absl::StrCat("rank ", rank_, " op ", i, " (", program[i].label, ") alone");
    std::vector<double> ms;
    for (int k = 0; k <= kIsolatedRuns; ++k) {
      const Clock::time_point at = Clock::now();
      absl::Status st = Enqueue(program[i], i, main_);
      if (st.ok()) st = Wait(main_, where);
      if (!st.ok()) return absl::Status(st.code(), absl::StrCat(where, ": ", st.message()));
      if (k > 0) ms.push_back(MsSince(at));
    }
    report.isolated_ms[i] = stats::Median(ms);
  }
  return report;
}

}  // namespace

absl::StatusOr<ReplayReport> ReplayOnNccl(const Placement& placement, int rank, int gpu,
                                          gloo::rendezvous::Store& store,
                                          const std::vector<Op>& program, int warmup, int steps,
                                          absl::Duration op_timeout,
                                          const std::function<void(int)>& at_step) {
  absl::StatusOr<const platform::NcclApi*> api = platform::LoadNcclApi();
  if (!api.ok()) return api.status();
  NcclRank r(**api, rank, op_timeout);
  if (absl::Status s = r.Open(gpu); !s.ok()) return s;
  if (absl::Status s = r.Join(placement, store); !s.ok()) return s;
  return r.Run(program, warmup, steps, at_step);
}

}  // namespace nodeprobe::workload
