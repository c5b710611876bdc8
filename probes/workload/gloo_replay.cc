#include "probes/workload/gloo_replay.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/broadcast.h>
#include <gloo/config.h>
#include <gloo/math.h>
#include <gloo/reduce_scatter.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/transport/tcp/device.h>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "platform/statistics.h"
#include "probes/workload/replay_timing.h"

namespace nodeprobe::workload {
namespace {

using Clock = ReplayClock;

// Overlapped ops (DDP's gradient buckets) run here, in order; Drain()
// blocks until every one queued has run and returns the first error.
class Overlap {
 public:
  Overlap() : thread_([this] { Loop(); }) {}
  ~Overlap() {
    {
      std::lock_guard<std::mutex> l(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  void Push(std::function<void()> work) {
    {
      std::lock_guard<std::mutex> l(mu_);
      queue_.push_back(std::move(work));
    }
    cv_.notify_all();
  }
  std::string Drain() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return queue_.empty() && !running_; });
    return std::exchange(error_, "");
  }

 private:
  void Loop() {
    std::unique_lock<std::mutex> l(mu_);
    while (true) {
      cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      std::function<void()> work = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
      l.unlock();
      std::string error;
      try {
        work();
      } catch (const std::exception& e) {
        error = e.what();
      }
      l.lock();
      running_ = false;
      if (error_.empty()) error_ = error;
      cv_.notify_all();
    }
  }
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
  bool stop_ = false;
  std::string error_;
  std::thread thread_;
};

}  // namespace

struct GlooReplay::Groups {
  std::shared_ptr<gloo::transport::Device> device;
  std::map<int, std::shared_ptr<gloo::rendezvous::Context>> contexts;  // by CommKey
  std::map<int, std::vector<int>> members;
  int rank = 0;
  std::chrono::milliseconds timeout{30000};
  // One buffer pair per op, kept across steps (the collectives' and the
  // sends' memory stays put while a send is in flight).
  std::map<size_t, std::pair<std::vector<float>, std::vector<float>>> buffers;
  std::map<size_t, std::unique_ptr<gloo::ReduceScatterHalvingDoubling<float>>> scatters;
  std::vector<std::unique_ptr<gloo::transport::UnboundBuffer>> sends;  // pending this step

  int IndexIn(int key, int global) const {
    const std::vector<int>& m = members.at(key);
    return static_cast<int>(std::find(m.begin(), m.end(), global) - m.begin());
  }
  std::pair<std::vector<float>, std::vector<float>>& Buffers(size_t op, size_t in, size_t out) {
    auto& b = buffers[op];
    if (b.first.size() != in) b.first.assign(in, 1.0f);
    if (b.second.size() != out) b.second.assign(out, 0.0f);
    return b;
  }
  // Runs one communication op; `tag` is the same on every member.
  void Communicate(const Op& op, size_t index, uint32_t tag);
  // Gloo has no options-style reduce-scatter: its halving-doubling
  // algorithm, made once per op (it registers its buffers).
  void ReduceScatter(const std::shared_ptr<gloo::rendezvous::Context>& ctx, size_t index,
                     size_t n) {
    auto& algo = scatters[index];
    if (!algo) {
      auto& b = Buffers(index, n, 0);
      algo = std::make_unique<gloo::ReduceScatterHalvingDoubling<float>>(
          ctx, std::vector<float*>{b.first.data()}, static_cast<int>(n),
          std::vector<int>(static_cast<size_t>(ctx->size), static_cast<int>(n) / ctx->size));
    }
    algo->run();
  }
};

void GlooReplay::Groups::Communicate(const Op& op, size_t index, uint32_t tag) {
  auto found = contexts.find(CommKey(op));
  if (found == contexts.end()) return;  // a group of one: nothing moves
  const std::shared_ptr<gloo::rendezvous::Context>& ctx = found->second;
  const int size = ctx->size;
  const size_t n =
      Elements(op.bytes, op.kind == OpKind::kSend || op.kind == OpKind::kRecv ? 1 : size);
  switch (op.kind) {
    case OpKind::kAllReduce: {
      auto& b = Buffers(index, n, 0);
      gloo::AllreduceOptions o(ctx);
      o.setOutput<float>(b.first.data(), n);
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::allreduce(o);
      return;
    }
    case OpKind::kAllGather: {
      auto& b = Buffers(index, n / size, n);
      gloo::AllgatherOptions o(ctx);
      o.setInput<float>(b.first.data(), n / size);
      o.setOutput<float>(b.second.data(), n);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::allgather(o);
      return;
    }
    case OpKind::kAllToAll: {
      auto& b = Buffers(index, n, n);
      gloo::AlltoallOptions o(ctx);
      o.setInput<float>(b.first.data(), n);
      o.setOutput<float>(b.second.data(), n);
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::alltoall(o);
      return;
    }
    case OpKind::kReduceScatter:
      ReduceScatter(ctx, index, n);
      return;
    case OpKind::kBroadcast: {
      auto& b = Buffers(index, n, 0);
      gloo::BroadcastOptions o(ctx);
      o.setOutput<float>(b.first.data(), n);
      o.setRoot(IndexIn(CommKey(op), op.peer));
      o.setTag(tag);
      o.setTimeout(timeout);
      gloo::broadcast(o);
      return;
    }
    case OpKind::kSend: {
      auto& b = Buffers(index, n, 0);
      auto buf = ctx->createUnboundBuffer(b.first.data(), n * sizeof(float));
      buf->send(IndexIn(CommKey(op), op.peer), tag);
      sends.push_back(std::move(buf));  // waited for at the step's end
      return;
    }
    case OpKind::kRecv: {
      auto& b = Buffers(index, n, 0);
      auto buf = ctx->createUnboundBuffer(b.first.data(), n * sizeof(float));
      buf->recv(IndexIn(CommKey(op), op.peer), tag);
      if (!buf->waitRecv(nullptr, timeout)) throw std::runtime_error("receive timed out");
      return;
    }
    case OpKind::kCompute:
    case OpKind::kWait:
      return;
  }
}

GlooReplay::GlooReplay(std::unique_ptr<Groups> groups) : groups_(std::move(groups)) {}
GlooReplay::~GlooReplay() = default;

absl::StatusOr<std::unique_ptr<GlooReplay>> GlooReplay::Connect(const Placement& placement,
                                                                int rank,
                                                                gloo::rendezvous::Store& store,
                                                                const std::string& bind_ip,
                                                                absl::Duration timeout) {
  auto g = std::make_unique<Groups>();
  g->rank = rank;
  g->timeout = std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout));
  try {
    gloo::transport::tcp::attr attr(bind_ip.c_str());
    g->device = gloo::transport::tcp::CreateDevice(attr);
    // Every rank joins its groups in this one order, so no two ranks wait
    // for each other in different groups.
    for (const auto& [key, name, m] : JoinOrder(placement, rank)) {
      g->members[key] = m;
      gloo::rendezvous::PrefixStore prefixed(absl::StrCat(name, "/", absl::StrJoin(m, ",")), store);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(g->IndexIn(key, rank),
                                                             static_cast<int>(m.size()));
      ctx->setTimeout(g->timeout);
      ctx->connectFullMesh(prefixed, g->device);
      g->contexts[key] = ctx;
    }
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("rank ", rank, ": Gloo could not connect its groups: ", e.what()));
  }
  return std::unique_ptr<GlooReplay>(new GlooReplay(std::move(g)));
}

absl::StatusOr<ReplayReport> GlooReplay::Run(const std::vector<Op>& program, int warmup, int steps,
                                             const std::function<void(int)>& at_step) {
  ReplayReport report;
  report.library = "gloo";
  report.transport = "tcp";
  report.version =
      absl::StrCat(GLOO_VERSION_MAJOR, ".", GLOO_VERSION_MINOR, ".", GLOO_VERSION_PATCH);
  Overlap overlap;
  const uint32_t per_step = static_cast<uint32_t>(program.size()) * 2 + 2;
  for (int s = 0; s < warmup + steps; ++s) {
    RankStep step;
    step.op_ms.assign(program.size(), 0);
    if (at_step && s >= warmup) at_step(s - warmup);
    const Clock::time_point start = Clock::now();
    for (size_t i = 0; i < program.size(); ++i) {
      const Op& op = program[i];
      const Clock::time_point at = Clock::now();
      // Tags repeat every step's worth; a send/recv pair shares its own.
      const uint32_t tag = static_cast<uint32_t>(s) * per_step +
                           (op.kind == OpKind::kSend || op.kind == OpKind::kRecv
                                ? static_cast<uint32_t>(program.size() + op.tag)
                                : static_cast<uint32_t>(i));
      try {
        if (op.kind == OpKind::kCompute) {
          SpinFor(at, op.compute_ms);
        } else if (op.kind == OpKind::kWait) {
          const std::string error = overlap.Drain();
          if (!error.empty()) throw std::runtime_error(error);
          step.exposed_ms += MsSince(at);
        } else if (op.overlapped) {
          overlap.Push([this, &op, i, tag, &step] {
            const Clock::time_point t = Clock::now();
            groups_->Communicate(op, i, tag);
            step.op_ms[i] = MsSince(t);
          });
          continue;
        } else {
          groups_->Communicate(op, i, tag);
          step.exposed_ms += op.kind == OpKind::kSend ? 0 : MsSince(at);
        }
      } catch (const std::exception& e) {
        overlap.Drain();
        return absl::InternalError(absl::StrCat("rank ", groups_->rank, " step ", s, " op ", i,
                                                " (", op.label, "): ", e.what()));
      }
      step.op_ms[i] = MsSince(at);
    }
    // Sends complete before the step ends (their buffers are reused).
    for (auto& send : groups_->sends) {
      if (!send->waitSend(nullptr, groups_->timeout)) {
        return absl::InternalError(absl::StrCat("rank ", groups_->rank, " step ", s,
                                                ": a pipeline send did not complete"));
      }
    }
    groups_->sends.clear();
    if (const std::string error = overlap.Drain(); !error.empty()) {
      return absl::InternalError(absl::StrCat("rank ", groups_->rank, ": ", error));
    }
    step.step_ms = MsSince(start);
    if (s >= warmup) report.steps.push_back(std::move(step));
  }
  if (at_step) at_step(steps);
  if (absl::Status alone =
          TimeAlone(program, static_cast<uint32_t>(warmup + steps) * per_step, &report);
      !alone.ok())
    return alone;
  return report;
}

absl::Status GlooReplay::TimeAlone(const std::vector<Op>& program, uint32_t first_tag,
                                   ReplayReport* report) {
  report->isolated_ms.assign(program.size(), 0);
  uint32_t tag = first_tag;
  for (size_t i : IsolatedOps(program)) {
    std::vector<double> ms;
    for (int k = 0; k <= kIsolatedRuns; ++k) {
      const Clock::time_point at = Clock::now();
      try {
        groups_->Communicate(program[i], i, tag++);
      } catch (const std::exception& e) {
        return absl::InternalError(absl::StrCat("rank ", groups_->rank, " op ", i, " (",
                                                program[i].label, ") alone: ", e.what()));
      }
      if (k > 0) ms.push_back(MsSince(at));
    }
    report->isolated_ms[i] = stats::Median(ms);
  }
  return absl::OkStatus();
}

}  // namespace nodeprobe::workload
