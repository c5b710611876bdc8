#include "probes/workload/burst.h"

#include <dirent.h>
#include <gloo/allreduce.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/prefix_store.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "probes/storage/storage_io.h"

namespace nodeprobe::workload {
namespace {

// Small shards: the load stops within one shard's write of its window's
// end (4 MiB: a quarter second on a 16 MiB/s device).
constexpr uint64_t kShardBytes = 4ull << 20;
constexpr size_t kBulkBytes = 1 << 20;
// A competing job's all-reduce: a DDP bucket's size.
constexpr size_t kCompetingBytes = 4 << 20;
constexpr absl::Duration kPoll = absl::Milliseconds(200);

void RemoveTree(const std::string& dir) {
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") unlink(absl::StrCat(dir, "/", name).c_str());
    }
    closedir(d);
  }
  rmdir(dir.c_str());
}

}  // namespace

absl::StatusOr<std::unique_ptr<Burst>> Burst::Prepare(const v1::WorkloadBurst& burst, int node,
                                                      int nodes, const std::string& bind_ip,
                                                      gloo::rendezvous::Store& store) {
  std::unique_ptr<Burst> b(new Burst(burst));
  if (burst.kind() == "storage") {
    std::string tmpl = absl::StrCat(burst.path(), "/nodeprobe-burst-XXXXXX");
    if (mkdtemp(tmpl.data()) == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "storage burst: cannot make a directory in ", burst.path(), ": ", std::strerror(errno)));
    }
    b->scratch_ = tmpl;
    return b;
  }
  if (burst.kind() == "competing") {
    try {
      gloo::transport::tcp::attr attr(bind_ip.c_str());
      auto device = gloo::transport::tcp::CreateDevice(attr);
      gloo::rendezvous::PrefixStore prefixed("burst/competing", store);
      auto ctx = std::make_shared<gloo::rendezvous::Context>(node, nodes);
      ctx->setTimeout(std::chrono::seconds(30));
      ctx->connectFullMesh(prefixed, device);
      b->competing_ = std::move(ctx);
    } catch (const std::exception& e) {
      return absl::UnavailableError(
          absl::StrCat("competing burst: Gloo could not connect the nodes: ", e.what()));
    }
    return b;
  }
  if (burst.kind() != "east-west") {
    return absl::InvalidArgumentError(absl::StrCat("unknown burst '", burst.kind(), "'"));
  }
  absl::StatusOr<platform::Fd> listener = platform::Listen(bind_ip, 0);
  if (!listener.ok()) return listener.status();
  absl::StatusOr<uint16_t> port = platform::LocalPort(listener->get());
  if (!port.ok()) return port.status();
  b->listener_ = *std::move(listener);
  b->sink_ = std::thread([raw = b.get()] { raw->Sink(); });
  try {
    const std::string mine = absl::StrCat(bind_ip, ":", *port);
    store.set(absl::StrCat("burst/", node), std::vector<char>(mine.begin(), mine.end()));
    const std::vector<char> next = store.get(absl::StrCat("burst/", (node + 1) % nodes));
    b->peer_.assign(next.begin(), next.end());
  } catch (const std::exception& e) {
    return absl::UnavailableError(absl::StrCat("east-west burst: ", e.what()));
  }
  return b;
}

Burst::~Burst() {
  Stop();
  closing_ = true;
  if (sink_.joinable()) sink_.join();
  if (!scratch_.empty()) RemoveTree(scratch_);
}

void Burst::AtStep(int measured_step) {
  const int from = static_cast<int>(burst_.at_step());
  if (measured_step == from) Start();
  // Asked to stop, not waited for: the step must not wait for a write in
  // flight (a checkpoint shard ends in its own time, as a real one would).
  if (measured_step >= from + static_cast<int>(burst_.steps())) stop_ = true;
}

std::string Burst::error() const {
  std::lock_guard<std::mutex> l(mu_);
  return error_;
}

void Burst::Fail(const std::string& why) {
  std::lock_guard<std::mutex> l(mu_);
  if (error_.empty()) error_ = why;
}

void Burst::Start() {
  if (started_) return;
  started_ = true;
  stop_ = false;
  load_ = std::thread([this] {
    if (burst_.kind() == "storage") return WriteCheckpoints();
    if (burst_.kind() == "competing") return Compete();
    SendBulk();
  });
}

void Burst::Stop() {
  stop_ = true;
  if (load_.joinable()) load_.join();
}

void Burst::WriteCheckpoints() {
  storage::IoPlan plan;
  plan.writers = 1;
  plan.shard_bytes = kShardBytes;
  plan.block_bytes = 1u << 20;
  while (!stop_) {
    plan.deadline = absl::Now() + absl::Seconds(30);
    absl::StatusOr<storage::WriteFigures> w = storage::WriteCheckpoint(scratch_, plan);
    if (!w.ok()) return Fail(absl::StrCat("storage burst: ", w.status().message()));
    for (const std::string& f : w->files) unlink(f.c_str());
  }
}

void Burst::SendBulk() {
  absl::StatusOr<platform::HostPort> peer = platform::ParseHostPort(peer_, 0);
  if (!peer.ok()) return Fail(absl::StrCat("east-west burst: ", peer.status().message()));
  absl::StatusOr<platform::Fd> fd = platform::Connect(*peer, absl::Now() + absl::Seconds(5));
  if (!fd.ok())
    return Fail(absl::StrCat("east-west burst to ", peer_, ": ", fd.status().message()));
  const std::vector<char> bulk(kBulkBytes, 'x');
  while (!stop_) {
    absl::Status s =
        platform::SendAll(fd->get(), bulk.data(), bulk.size(), absl::Now() + absl::Seconds(10));
    if (!s.ok()) return Fail(absl::StrCat("east-west burst to ", peer_, ": ", s.message()));
  }
}

void Burst::Compete() {
  std::vector<float> buf(kCompetingBytes / sizeof(float));
  try {
    for (uint32_t round = 0;; ++round) {
      std::fill(buf.begin(), buf.end(), 1.0f);
      buf.back() = stop_ ? 1.0f : 0.0f;  // summed: any node's stop stops all
      gloo::AllreduceOptions o(competing_);
      o.setOutput<float>(buf.data(), buf.size());
      o.setReduceFunction(
          static_cast<void (*)(void*, const void*, const void*, size_t)>(&gloo::sum<float>));
      o.setTag(round);
      gloo::allreduce(o);
      if (buf.back() > 0) return;
    }
  } catch (const std::exception& e) {
    Fail(absl::StrCat("competing burst: ", e.what()));
  }
}

// Takes the previous node's bulk and drops it, one connection at a time.
void Burst::Sink() {
  std::vector<char> buf(kBulkBytes);
  while (!closing_) {
    absl::StatusOr<platform::Fd> conn = platform::Accept(listener_.get(), absl::Now() + kPoll);
    if (!conn.ok()) continue;
    while (!closing_) {
      absl::StatusOr<size_t> got =
          platform::RecvSome(conn->get(), buf.data(), buf.size(), absl::Now() + kPoll);
      if (got.ok() && *got == 0) break;  // the sender closed
      if (!got.ok() && got.status().code() != absl::StatusCode::kDeadlineExceeded) break;
    }
  }
}

}  // namespace nodeprobe::workload
