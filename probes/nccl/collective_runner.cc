#include "probes/nccl/collective_runner.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "platform/file_tree.h"
#include "platform/nccl_api.h"
#include "platform/nvml.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/nccl/collective_math.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/nccl/nccl_log.h"
#include "probes/pcie/pcie_link.h"

extern char** environ;

namespace nodeprobe::nccl {
namespace {

// The rank's GPU links (what bounds the ranks' hops inside its node), read
// before NCCL starts so nothing is measured around it: the PCIe link from
// sysfs, NVLink from NVML where it loads.
void RecordGpuLinks(v1::CollectiveRank* me) {
  if (std::optional<pcie::PcieLink> link =
          pcie::ReadCurrentLink(platform::FileTree("/sys"), "bus/pci/devices/" + me->bus_id())) {
    me->set_pcie_gts(link->gts);
    me->set_pcie_width(link->width);
  }
  absl::StatusOr<v1::GpuReport> gpus = platform::ReadNvmlGpus();
  if (!gpus.ok()) return;
  for (const v1::GpuInfo& g : gpus->gpus()) {
    if (absl::AsciiStrToLower(g.bus_id()) != me->bus_id()) continue;
    me->set_nvlinks_active(g.nvlinks_active());
    me->set_nvlink_version(g.nvlink_version());
  }
}

using platform::NcclApi;

constexpr size_t kMaxLogBytes = 16 << 20;

// NCCL_DEBUG output goes to files in a private directory (never to the
// worker's stdout, which carries its events), read back after the run.
class LogDir {
 public:
  LogDir() {
    const char* tmp = getenv("TMPDIR");
    std::string t = absl::StrCat(tmp != nullptr && *tmp ? tmp : "/tmp", "/nodeprobe-nccl-XXXXXX");
    if (mkdtemp(t.data()) != nullptr) path_ = t;
  }
  ~LogDir() {
    if (path_.empty()) return;
    for (const std::string& f : Files()) unlink(f.c_str());
    rmdir(path_.c_str());
  }
  const std::string& path() const { return path_; }
  std::vector<std::string> Files() const {
    std::vector<std::string> out;
    DIR* d = opendir(path_.c_str());
    if (d == nullptr) return out;
    while (dirent* e = readdir(d)) {
      if (e->d_name[0] != '.') out.push_back(absl::StrCat(path_, "/", e->d_name));
    }
    closedir(d);
    return out;
  }
  v1::NcclLogReport Parse() const {
    NcclLogParser parser;
    size_t budget = kMaxLogBytes;
    for (const std::string& f : Files()) {
      std::ifstream in(f, std::ios::binary);
      std::string chunk(64 << 10, '\0');
      while (budget > 0 && in.read(chunk.data(), static_cast<std::streamsize>(
                                                     std::min(chunk.size(), budget))),
             in.gcount() > 0) {
        parser.AddText(std::string_view(chunk.data(), static_cast<size_t>(in.gcount())));
        budget -= static_cast<size_t>(in.gcount());
      }
      parser.Flush();
    }
    return parser.Report();
  }

 private:
  std::string path_;
};

// The NCCL_* settings: the caller's, then our logging unless the caller set
// its own; what the process ends up with is recorded.
void SetEnvironment(const v1::RunCollective& task, const LogDir& logs,
                    v1::CollectiveReport* report) {
  for (const auto& [k, v] : task.env()) {
    if (IsSettableNcclVariable(k)) setenv(k.c_str(), v.c_str(), 1);  // checked by the caller too
  }
  setenv("NCCL_DEBUG", "INFO", 0);
  setenv("NCCL_DEBUG_SUBSYS", "INIT,NET,GRAPH,ENV", 0);
  if (!logs.path().empty()) {
    setenv("NCCL_DEBUG_FILE", absl::StrCat(logs.path(), "/nccl.%h.%p.log").c_str(), 1);
  }
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    const size_t eq = kv.find('=');
    if (eq == std::string_view::npos || kv.substr(0, 5) != "NCCL_") continue;
    if (kv.substr(0, eq) == "NCCL_DEBUG_FILE") continue;  // our temporary path
    (*report->mutable_env())[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
}

class Rank {
 public:
  Rank(const NcclApi& api, const v1::RunCollective& task)
      : a_(api), n_(static_cast<int>(task.nranks())), r_(static_cast<int>(task.rank())) {}

  // The stream first: work still queued on it (after an abort) uses the
  // communicator, the events and the buffers until it drains.
  ~Rank() {
    if (stream_ != nullptr) a_.cudaStreamDestroy(stream_);
    if (comm_ != nullptr && !aborted_) a_.ncclCommDestroy(comm_);
    if (start_ != nullptr) a_.cudaEventDestroy(start_);
    if (end_ != nullptr) a_.cudaEventDestroy(end_);
    if (send_ != nullptr) a_.cudaFree(send_);
    if (recv_ != nullptr) a_.cudaFree(recv_);
  }

  void set_comm(platform::NcclComm c) { comm_ = c; }

  absl::Status Setup(uint64_t max_bytes) {
    absl::Status s = Cuda(a_.cudaStreamCreate(&stream_), "cudaStreamCreate");
    if (s.ok()) s = Cuda(a_.cudaEventCreate(&start_), "cudaEventCreate");
    if (s.ok()) s = Cuda(a_.cudaEventCreate(&end_), "cudaEventCreate");
    if (s.ok()) s = Cuda(a_.cudaMalloc(&send_, max_bytes), "cudaMalloc");
    if (s.ok()) s = Cuda(a_.cudaMalloc(&recv_, max_bytes), "cudaMalloc");
    return s;
  }

  // One row: out of place, then in place. A non-OK status ends the run
  // (the communicator is aborted on a timeout or an asynchronous error).
  absl::Status RunRow(const std::string& c, uint64_t size, const v1::CollectiveOptions& o,
                      absl::Time deadline, v1::CollectiveRow* row) {
    const CollectiveShape shape = ShapeOf(c, size, n_);
    row->set_collective(c);
    row->set_size(shape.bytes);
    row->set_count(shape.param);
    row->set_type("float");
    row->set_redop(c == "all_reduce" || c == "reduce" || c == "reduce_scatter" ? "sum" : "");
    row->set_root(c == "broadcast" || c == "reduce" ? 0 : -1);
    row->set_wrong(-1);
    row->set_in_place_wrong(-1);
    stuck_in_ = absl::StrCat(c, " ", shape.bytes, " B");
    if (shape.param == 0) return absl::OkStatus();  // too small for this many ranks
    for (int in_place = 0; in_place < 2; ++in_place) {
      if (in_place && !RunsInPlace(c)) break;
      double time_us = 0;
      int64_t wrong = -1;
      absl::Status s = Measure(c, shape, in_place, o, deadline, &time_us);
      if (s.ok() && !o.skip_check()) s = Check(c, shape, in_place, deadline, &wrong);
      if (!s.ok()) return s;
      const double algbw = AlgBwGbps(shape.bytes, time_us);
      const double busbw = algbw * BusBwFactor(c, n_);
      if (in_place) {
        row->set_in_place_time_us(time_us);
        row->set_in_place_algbw_gbps(algbw);
        row->set_in_place_busbw_gbps(busbw);
        row->set_in_place_wrong(wrong);
      } else {
        row->set_time_us(time_us);
        row->set_algbw_gbps(algbw);
        row->set_busbw_gbps(busbw);
        row->set_wrong(wrong);
      }
    }
    return absl::OkStatus();
  }

  const std::string& stuck_in() const { return stuck_in_; }

 private:
  absl::Status Cuda(int rc, const char* what) const {
    if (rc == platform::kCudaSuccess) return absl::OkStatus();
    return absl::InternalError(absl::StrCat(what, ": ", a_.cudaGetErrorString(rc)));
  }
  absl::Status Nccl(int rc, const char* what) {
    if (rc == platform::kNcclSuccess || rc == platform::kNcclInProgress) return absl::OkStatus();
    return absl::AbortedError(absl::StrCat(what, ": ", a_.ncclGetErrorString(rc)));
  }

  // Where the op reads and writes: in place, the data lives in one buffer
  // (all_gather sends from its own slot of the output, reduce_scatter
  // writes into its own slot of the input), as nccl-tests lays it out.
  struct Buffers {
    char* in;       // what the rank fills (shape.send elements)
    char* send;
    char* recv;
  };
  Buffers Layout(const std::string& c, const CollectiveShape& s, bool in_place) const {
    char* send = static_cast<char*>(send_);
    char* recv = static_cast<char*>(recv_);
    if (!in_place) return {send, send, recv};
    const uint64_t slot = static_cast<uint64_t>(r_) * s.param * 4;
    if (c == "all_gather") return {recv + slot, recv + slot, recv};
    if (c == "reduce_scatter") return {send, send, send + slot};
    return {recv, recv, recv};
  }

  absl::Status Launch(const std::string& c, const CollectiveShape& s, const Buffers& b) {
    using platform::kNcclFloat32;
    using platform::kNcclSum;
    if (c == "all_reduce") {
      return Nccl(a_.ncclAllReduce(b.send, b.recv, s.param, kNcclFloat32, kNcclSum, comm_, stream_),
                  "ncclAllReduce");
    }
    if (c == "all_gather") {
      return Nccl(a_.ncclAllGather(b.send, b.recv, s.param, kNcclFloat32, comm_, stream_),
                  "ncclAllGather");
    }
    if (c == "reduce_scatter") {
      return Nccl(a_.ncclReduceScatter(b.send, b.recv, s.param, kNcclFloat32, kNcclSum, comm_,
                                       stream_),
                  "ncclReduceScatter");
    }
    if (c == "broadcast") {
      return Nccl(a_.ncclBroadcast(b.send, b.recv, s.param, kNcclFloat32, 0, comm_, stream_),
                  "ncclBroadcast");
    }
    if (c == "reduce") {
      return Nccl(a_.ncclReduce(b.send, b.recv, s.param, kNcclFloat32, kNcclSum, 0, comm_, stream_),
                  "ncclReduce");
    }
    // alltoall and sendrecv: point-to-point inside one group, as nccl-tests.
    absl::Status st = Nccl(a_.ncclGroupStart(), "ncclGroupStart");
    if (c == "alltoall") {
      for (int p = 0; p < n_ && st.ok(); ++p) {
        const uint64_t off = static_cast<uint64_t>(p) * s.param * 4;
        st = Nccl(a_.ncclSend(b.send + off, s.param, kNcclFloat32, p, comm_, stream_), "ncclSend");
        if (st.ok()) {
          st = Nccl(a_.ncclRecv(b.recv + off, s.param, kNcclFloat32, p, comm_, stream_),
                    "ncclRecv");
        }
      }
    } else {  // sendrecv: to the next rank, from the previous one
      st = Nccl(a_.ncclSend(b.send, s.param, kNcclFloat32, (r_ + 1) % n_, comm_, stream_),
                "ncclSend");
      if (st.ok()) {
        st = Nccl(a_.ncclRecv(b.recv, s.param, kNcclFloat32, (r_ - 1 + n_) % n_, comm_, stream_),
                  "ncclRecv");
      }
    }
    absl::Status end = Nccl(a_.ncclGroupEnd(), "ncclGroupEnd");
    return st.ok() ? end : st;
  }

  // Until the stream is idle: the deadline aborts the communicator, an
  // asynchronous NCCL error too.
  absl::Status Wait(absl::Time deadline) {
    while (true) {
      const int q = a_.cudaStreamQuery(stream_);
      if (q == platform::kCudaSuccess) return absl::OkStatus();
      if (q != platform::kCudaErrorNotReady) return Cuda(q, "cudaStreamQuery");
      int async = platform::kNcclSuccess;
      a_.ncclCommGetAsyncError(comm_, &async);
      if (async != platform::kNcclSuccess && async != platform::kNcclInProgress) {
        Abort();
        return absl::AbortedError(
            absl::StrCat("NCCL reported an asynchronous error: ", a_.ncclGetErrorString(async)));
      }
      if (absl::Now() >= deadline) {
        Abort();
        return absl::DeadlineExceededError(absl::StrCat("did not finish ", stuck_in_));
      }
      std::this_thread::yield();
    }
  }

  void Abort() {
    if (!aborted_ && comm_ != nullptr) a_.ncclCommAbort(comm_);
    aborted_ = true;
  }

  absl::Status Fill(const std::string& c, const CollectiveShape& s, const Buffers& b) {
    std::vector<float> in(s.send);
    for (uint64_t i = 0; i < s.send; ++i) in[i] = InputFor(c, r_, i);
    return Cuda(a_.cudaMemcpy(b.in, in.data(), s.send * 4, platform::kCudaMemcpyHostToDevice),
                "cudaMemcpy to the GPU");
  }

  absl::Status Measure(const std::string& c, const CollectiveShape& s, bool in_place,
                       const v1::CollectiveOptions& o, absl::Time deadline, double* time_us) {
    const Buffers b = Layout(c, s, in_place);
    absl::Status st = Fill(c, s, b);
    for (uint32_t i = 0; st.ok() && i < o.warmup_iters(); ++i) st = Launch(c, s, b);
    if (st.ok()) st = Wait(deadline);
    if (st.ok()) st = Cuda(a_.cudaEventRecord(start_, stream_), "cudaEventRecord");
    for (uint32_t i = 0; st.ok() && i < o.iters(); ++i) st = Launch(c, s, b);
    if (st.ok()) st = Cuda(a_.cudaEventRecord(end_, stream_), "cudaEventRecord");
    if (st.ok()) st = Wait(deadline);
    float ms = 0;
    if (st.ok()) st = Cuda(a_.cudaEventElapsedTime(&ms, start_, end_), "cudaEventElapsedTime");
    if (st.ok()) *time_us = 1000.0 * ms / std::max<uint32_t>(1, o.iters());
    return st;
  }

  // One more run on fresh data, every element compared with what it must
  // be. The receive side is pre-filled with -1 (which no result holds) in
  // place too, before this rank's input goes in: otherwise the other ranks'
  // slots of an in-place all_gather still hold the timed runs' correct
  // output, and a write the collective missed would pass.
  absl::Status Check(const std::string& c, const CollectiveShape& s, bool in_place,
                     absl::Time deadline, int64_t* wrong) {
    const Buffers b = Layout(c, s, in_place);
    std::vector<float> junk(s.recv, -1.0f);
    absl::Status st = Cuda(a_.cudaMemcpy(b.recv, junk.data(), s.recv * 4,
                                         platform::kCudaMemcpyHostToDevice),
                           "cudaMemcpy to the GPU");
    if (!st.ok()) return st;
    st = Fill(c, s, b);
    if (st.ok()) st = Launch(c, s, b);
    if (st.ok()) st = Wait(deadline);
    std::vector<float> out(s.recv);
    if (st.ok()) {
      st = Cuda(a_.cudaMemcpy(out.data(), b.recv, s.recv * 4, platform::kCudaMemcpyDeviceToHost),
                "cudaMemcpy from the GPU");
    }
    if (!st.ok()) return st;
    int64_t bad = 0;
    for (uint64_t i = 0; i < s.recv; ++i) {
      std::optional<float> want = ExpectedValue(c, s, n_, r_, i);
      if (want.has_value() && out[i] != *want) ++bad;
    }
    *wrong = bad;
    return absl::OkStatus();
  }

  const NcclApi& a_;
  const int n_;
  const int r_;
  platform::NcclComm comm_ = nullptr;
  platform::CudaStream stream_ = nullptr;
  platform::CudaEvent start_ = nullptr;
  platform::CudaEvent end_ = nullptr;
  void* send_ = nullptr;
  void* recv_ = nullptr;
  bool aborted_ = false;
  std::string stuck_in_ = "ncclCommInitRank";
};

// Marks this rank failed in `r` (its one rank entry) with the finding.
void Fail(v1::ProbeResult* r, const absl::Status& s, const std::string& where) {
  v1::CollectiveRank* me = r->mutable_collective()->mutable_ranks(0);
  const bool timeout = absl::IsDeadlineExceeded(s);
  me->set_state(timeout ? "timeout" : "error");
  me->set_error(std::string(s.message()));
  me->set_stuck_in(where);
  const bool setup = where == "ncclCommInitRank" || where == "cudaSetDevice";
  const char* code = timeout ? findings::kNcclTimeout.code
                     : setup ? findings::kNcclInitFailed.code
                             : findings::kNcclAsyncError.code;
  AddFinding(r, code, absl::StrCat("rank ", me->rank()),
             absl::StrCat("rank ", me->rank(), " (GPU ", me->gpu(), "): ", s.message()));
}

// Why a task cannot run at all ("" when it can): options out of range, a
// rank outside the run, an environment variable we do not set.
std::string TaskRefusal(const v1::RunCollective& task, const v1::CollectiveOptions& opts) {
  if (absl::Status v = ValidateOptions(opts); !v.ok()) return std::string(v.message());
  if (task.nranks() == 0 || task.rank() >= task.nranks()) return "rank outside 0..nranks-1";
  for (const auto& [k, v] : task.env()) {
    if (!IsSettableNcclVariable(k)) {
      return absl::StrCat("refusing to set ", k,
                          ": not one of the NCCL_* variables nodeprobe sets");
    }
  }
  return "";
}

// The task's GPU made current and its bus id and links recorded; false
// (with `out` saying why: SKIP without CUDA or GPUs, a failed rank for a
// GPU that is not there) when the rank cannot go on.
bool OpenGpu(const NcclApi& a, const v1::RunCollective& task, RankOutput* out) {
  v1::CollectiveRank* me = out->result.mutable_collective()->mutable_ranks(0);
  int gpus = 0;
  const int rc = a.cudaGetDeviceCount(&gpus);
  if (rc != platform::kCudaSuccess || gpus == 0) {
    out->result = SkipResult("nccl", rc != platform::kCudaSuccess
                                         ? platform::NoGpuReason(a, rc)
                                         : std::string("the CUDA runtime reports no GPU"));
    return false;
  }
  if (static_cast<int>(task.gpu()) >= gpus ||
      a.cudaSetDevice(static_cast<int>(task.gpu())) != platform::kCudaSuccess) {
    Fail(&out->result,
         absl::InvalidArgumentError(
             absl::StrCat("GPU ", task.gpu(), " does not exist (", gpus, " here)")),
         "cudaSetDevice");
    return false;
  }
  char bus[32] = {0};
  if (a.cudaDeviceGetPCIBusId(bus, sizeof(bus), static_cast<int>(task.gpu())) == 0) {
    me->set_bus_id(absl::AsciiStrToLower(bus));
    RecordGpuLinks(me);
  }
  return true;
}

// The run's unique id: rank 0 makes it (and hands it to `on_unique_id`),
// the others are given it. UNAVAILABLE when NCCL could not make one,
// INVALID_ARGUMENT for an id of the wrong size.
absl::StatusOr<platform::NcclUniqueId> UniqueIdOf(
    const NcclApi& a, const v1::RunCollective& task,
    const std::function<void(const std::string&)>& on_unique_id) {
  platform::NcclUniqueId id{};
  if (task.rank() == 0 && task.unique_id().empty()) {
    if (int e = a.ncclGetUniqueId(&id); e != platform::kNcclSuccess) {
      return absl::UnavailableError(absl::StrCat("ncclGetUniqueId: ", a.ncclGetErrorString(e)));
    }
    if (on_unique_id) on_unique_id(std::string(id.internal, sizeof(id.internal)));
    return id;
  }
  if (task.unique_id().size() != sizeof(id.internal)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the unique id is ", task.unique_id().size(), " bytes, not ", sizeof(id.internal)));
  }
  memcpy(id.internal, task.unique_id().data(), sizeof(id.internal));
  return id;
}

// The communicator, once every rank joined. ncclCommInitRank blocks until
// they all have: on its own thread, so a rank that never comes costs the
// deadline (DEADLINE_EXCEEDED; the thread is abandoned), not forever.
// std::mutex, not absl::Notification: Debian's abseil is not built for
// TSan, which then cannot see its ordering.
absl::StatusOr<platform::NcclComm> JoinComm(const NcclApi& a, const v1::RunCollective& task,
                                           const platform::NcclUniqueId& id,
                                           absl::Time deadline) {
  struct Init {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    platform::NcclComm comm = nullptr;
    int rc = 0;
  };
  auto init = std::make_shared<Init>();
  const int nranks = static_cast<int>(task.nranks());
  const int rank = static_cast<int>(task.rank());
  const int gpu = static_cast<int>(task.gpu());
  std::thread([init, &a, nranks, rank, gpu, id] {
    a.cudaSetDevice(gpu);  // the device is per thread
    platform::NcclComm comm = nullptr;
    const int rc = a.ncclCommInitRank(&comm, nranks, id, rank);
    std::lock_guard<std::mutex> l(init->mu);
    init->comm = comm;
    init->rc = rc;
    init->done = true;
    init->cv.notify_all();
  }).detach();
  std::unique_lock<std::mutex> l(init->mu);
  if (!init->cv.wait_until(l, absl::ToChronoTime(deadline), [&] { return init->done; })) {
    return absl::DeadlineExceededError("ncclCommInitRank did not return: not every rank joined");
  }
  if (init->rc != platform::kNcclSuccess) {
    return absl::UnavailableError(
        absl::StrCat("ncclCommInitRank: ", a.ncclGetErrorString(init->rc)));
  }
  return init->comm;
}

// Every collective at every size of the sweep, each to its own deadline;
// the first failure stops the sweep and fails the rank where it stuck.
void RunSweep(const NcclApi& a, const v1::RunCollective& task, const v1::CollectiveOptions& opts,
              platform::NcclComm comm, absl::Time deadline, v1::ProbeResult* r) {
  v1::CollectiveRank* me = r->mutable_collective()->mutable_ranks(0);
  const std::vector<uint64_t> sizes = SweepSizes(opts);
  uint64_t max_bytes = 4;
  for (uint64_t s : sizes) max_bytes = std::max(max_bytes, s);
  Rank runner(a, task);
  runner.set_comm(comm);
  absl::Status st = runner.Setup(max_bytes + 64);
  for (const std::string& c : opts.collectives()) {
    for (uint64_t size : sizes) {
      if (!st.ok()) break;
      const absl::Time op_deadline =
          std::min(deadline, absl::Now() + absl::Seconds(opts.op_timeout_s()));
      st = runner.RunRow(c, size, opts, op_deadline, me->add_rows());
    }
  }
  if (!st.ok()) Fail(r, st, runner.stuck_in());
  if (st.ok()) me->set_state("done");
}

}  // namespace

RankOutput RunCollectiveRank(const v1::RunCollective& task, absl::Time deadline,
                             const std::function<void(const std::string&)>& on_unique_id) {
  RankOutput out;
  v1::ProbeResult& r = out.result;
  r.set_probe("nccl");
  v1::CollectiveReport* report = r.mutable_collective();
  report->set_nranks(task.nranks());
  v1::CollectiveRank* me = report->add_ranks();
  me->set_rank(task.rank());
  me->set_gpu(static_cast<int>(task.gpu()));
  const v1::CollectiveOptions opts = WithDefaults(task.options());
  if (const std::string refused = TaskRefusal(task, opts); !refused.empty()) {
    out.result = ErrorResult("nccl", findings::kTaskFailed.code, refused);
    return out;
  }
  LogDir logs;
  SetEnvironment(task, logs, report);
  absl::StatusOr<const platform::NcclApi*> loaded = platform::LoadNcclApi();
  if (!loaded.ok()) {
    out.result = SkipResult("nccl", std::string(loaded.status().message()));
    return out;
  }
  const NcclApi& a = **loaded;
  report->set_cuda_runtime(a.cudart_path);
  report->set_nccl_library(a.nccl_path);
  int version = 0;
  if (a.ncclGetVersion(&version) == platform::kNcclSuccess) {
    report->set_nccl_version(platform::NcclVersionString(version));
  }
  if (!OpenGpu(a, task, &out)) return out;
  absl::StatusOr<platform::NcclUniqueId> id = UniqueIdOf(a, task, on_unique_id);
  if (absl::IsInvalidArgument(id.status())) {
    out.result =
        ErrorResult("nccl", findings::kTaskFailed.code, std::string(id.status().message()));
    return out;
  }
  if (!id.ok()) {
    Fail(&r, id.status(), "ncclCommInitRank");
    return out;
  }
  absl::StatusOr<platform::NcclComm> comm = JoinComm(a, task, *id, deadline);
  if (comm.ok()) {
    RunSweep(a, task, opts, *comm, deadline, &r);
  } else {
    out.abandoned = absl::IsDeadlineExceeded(comm.status());
    Fail(&r, comm.status(), "ncclCommInitRank");
  }
  *report->mutable_log() = logs.Parse();
  return out;
}

}  // namespace nodeprobe::nccl
