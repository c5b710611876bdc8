#include "agent/agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "agent/agent_metrics.h"
#include "agent/kernel_watch.h"
#include "agent/link_flap.h"
#include "agent/restart_in_place.h"
#include "nodeprobe_version.h"
#include "platform/file_tree.h"
#include "platform/host_paths.h"
#include "platform/library_versions.h"
#include "platform/rdma_sysfs.h"
#include "platform/route.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/nccl/nccl_findings.h"
#include "probes/rdma_devices/compute_rails.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/transfer/counter_deltas.h"
#include "probes/transfer/expectations.h"
#include "probes/transfer/gid_select.h"
#include "tasks/host_roots.h"
#include "tasks/task_kinds.h"
#include "tasks/task_launcher.h"

namespace nodeprobe::agent {
Agent::Agent(AgentOptions options) : options_(std::move(options)) {
  // The default port, or any free one (several agents in one namespace);
  // the port in use is announced in the registration.
  auto responder = mtu::MtuResponder::Start("", mtu::kDefaultMtuPort);
  if (!responder.ok()) responder = mtu::MtuResponder::Start("", 0);
  if (responder.ok()) {
    mtu_responder_ = *std::move(responder);
    mtu_thread_ = std::thread([this] { mtu_responder_->Serve(); });
  }
}

Agent::~Agent() {
  Stop();
  if (mtu_responder_) mtu_responder_->Stop();
  if (mtu_thread_.joinable()) mtu_thread_.join();
  workers_.JoinAll();
}

void Agent::Stop() {
  stopping_ = true;
  {
    platform::MutexLock l(&mu_);
    if (context_) context_->TryCancel();
    cv_.SignalAll();
  }
  platform::MutexLock l(&tasks_mu_);
  tasks_cv_.SignalAll();
}

namespace {

// The rail's goodput as the transfer bar derives it.
void SetRailGoodput(v1::Rail* rail) {
  std::string basis;
  const double goodput = transfer::GoodputGbps(
      transfer::LiveRdmaLinkFacts("/sys", rail->rdma_device(), rail->port()), v1::RDMA, &basis);
  if (goodput <= 0) return;
  rail->set_goodput_gbps(goodput);
  rail->set_goodput_basis(basis);
}

}  // namespace

v1::Registration Agent::BuildRegistration() const {
  v1::Registration reg;
  reg.set_node_name(options_.node_name);
  reg.set_agent_version(NODEPROBE_VERSION);
  // This build serves every kind of its own table: stating them cannot fail.
  (void)tasks::StateServed(&reg, tasks::AllTaskKinds());
  if (mtu_responder_) reg.set_mtu_port(mtu_responder_->port());
  platform::LibraryVersion verbs = platform::RdmaCoreVersion();
  v1::Component* c = reg.add_inventory();
  c->set_name("rdma_core");
  c->set_present(verbs.present);
  c->set_version(verbs.version);
  // Rails: the node's compute rails (probes/rdma_devices/compute_rails.h:
  // ACTIVE, not a VF, and the GPUs' nearest NICs where there are GPUs),
  // with the netdev and IPv4 addresses their GIDs carry.
  const platform::FileTree sys("/sys");
  auto devs = platform::ReadRdmaDevices(sys);
  if (devs.ok()) {
    std::vector<std::string> left_out;
    for (rdma::ComputeRail c : rdma::ComputeRails(*devs, sys, &left_out)) {
      rdma::PortNetdevs& p = c.port;
      // InfiniBand ports too, through their IPoIB interface and its address.
      if (p.ipv4.empty() && !c.netdev.empty()) p.ipv4 = platform::Ipv4AddressesOf(c.netdev);
      v1::Rail* rail = reg.add_rails();
      rail->set_name(absl::StrCat(p.device, ":", p.port));
      rail->set_rdma_device(p.device);
      rail->set_port(p.port);
      rail->set_link_layer(p.link_layer);
      rail->set_rate_gbps(p.rate_gbps);
      SetRailGoodput(rail);
      rail->set_gpu_local(c.gpu_local);
      rail->set_gpu_bus_id(c.gpu_bus_id);
      if (!c.netdev.empty()) rail->set_netdev(c.netdev);
      for (const std::string& ip : p.ipv4) rail->add_ipv4(ip);
      if (p.link_layer == "Ethernet" && !c.netdev.empty()) {
        // The GID the transfers would use, for NCCL_IB_GID_INDEX.
        for (const platform::RawRdmaDevice& dev : *devs) {
          for (const platform::RawRdmaPort& port : dev.ports) {
            if (dev.name != p.device || port.port != p.port) continue;
            absl::StatusOr<transfer::GidChoice> gid = transfer::SelectGid(
                transfer::GidTableOf(port), p.link_layer, c.netdev,
                platform::Ipv4AddressesOf(c.netdev), std::nullopt);
            if (gid.ok()) rail->set_gid_index(gid->index);
          }
        }
      }
    }
    for (const std::string& why : left_out) {
      std::cerr << "nodeprobe agent: not a rail: " << why << "\n";
    }
  }
  return reg;
}

void Agent::Write(const v1::AgentMessage& msg) {
  platform::MutexLock l(&write_mu_);
  if (stream_) stream_->Write(msg);
}

void Agent::HandleTask(const v1::Task& received) {
  const absl::Time deadline =
      absl::Now() + absl::Seconds(received.deadline_s() > 0 ? received.deadline_s() : 600);
  // What this node reads and what it is called are the agent's own
  // business: roots or names in a task from the network are ignored.
  v1::Task task = received;
  if (task.has_run_probes()) {
    task.mutable_run_probes()->clear_host();
    task.mutable_run_probes()->set_node_name(options_.node_name);
    if (!options_.capture_dir.empty()) {
      platform::HostPaths capture;
      capture.UseCapture(options_.capture_dir);
      *task.mutable_run_probes()->mutable_host() = tasks::ToHostRoots(capture);
    }
  }
  if (options_.metrics && task.kind_case() != v1::Task::KIND_NOT_SET) {
    options_.metrics->Task(tasks::TaskKind(task));
  }
  if (task.has_serve_transfer()) return ServeTransferTask(task, deadline);
  if (task.has_run_collective() || task.has_run_workload_rank()) {
    return RunRankTask(task, deadline);
  }
  if (task.has_restart_agent()) return RestartAgentTask(task);
  if (task.has_flap_link()) return FlapLinkTask(task, deadline);
  if (task.has_kernel_events()) return KernelEventsTask(task);
  v1::AgentMessage reply;
  *reply.mutable_result() = tasks::RunTask(options_.self_exe, task, deadline);
  reply.mutable_result()->mutable_result()->set_node(options_.node_name);
  if (options_.metrics && task.has_run_probes()) options_.metrics->Report(reply.result().report());
  if (options_.metrics && task.has_run_transfer()) {
    options_.metrics->Transfer(reply.result().result());
  }
  Write(reply);
}

void Agent::ServeTransferTask(const v1::Task& task, absl::Time deadline) {
  v1::AgentMessage reply;
  // The server runs until the coordinator cancels the task, the session
  // ends or the deadline passes; then the worker (its process group) is
  // killed as `worker` goes out of scope.
  absl::StatusOr<platform::TaskWorker> worker =
      platform::TaskWorker::Start(options_.self_exe, task);
  absl::StatusOr<v1::TaskEvent> ev =
      worker.ok() ? worker->Next(deadline) : absl::StatusOr<v1::TaskEvent>(worker.status());
  if (ev.ok() && ev->has_ready()) {
    v1::AgentMessage ready;
    *ready.mutable_endpoint() = ev->ready();
    ready.mutable_endpoint()->set_task_id(task.task_id());
    Write(ready);
    platform::MutexLock l(&tasks_mu_);
    while (!stopping_ && connected_ && cancelled_.count(task.task_id()) == 0) {
      if (!tasks_cv_.WaitUntil(&tasks_mu_, deadline)) break;
    }
    cancelled_.erase(task.task_id());
    return;
  }
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  if (ev.ok() && ev->has_done()) {
    *result->mutable_result() = ev->done().result();
  } else {
    *result->mutable_result() =
        ErrorResult("transfer", findings::kTransferServeFailed.code,
                    ev.ok() ? "the transfer server sent no endpoint"
                            : absl::StrCat("the transfer server ", ev.status().message()));
  }
  result->mutable_result()->set_node(options_.node_name);
  Write(reply);
}

// Failure injection: the agent restarts in place, when it was started with
// --allow-disruptive.
void Agent::RestartAgentTask(const v1::Task& task) {
  v1::AgentMessage reply;
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  if (!options_.allow_disruptive) {
    *result->mutable_result() = ErrorResult(
        "restart-agent", findings::kFailureRefused.code,
        "this agent was not started with --allow-disruptive: it does not restart on request");
    result->mutable_result()->set_node(options_.node_name);
    Write(reply);
    return;
  }
  result->mutable_result()->set_probe("restart-agent");
  result->mutable_result()->set_node(options_.node_name);
  result->mutable_result()->set_verdict(v1::PASS);
  result->mutable_result()->set_reason("restarting in place now");
  Write(reply);
  std::cerr << "nodeprobe agent: restarting in place (failure injection, task " << task.task_id()
            << ")\n";
  absl::Status s = RestartInPlace(absl::Milliseconds(300));
  std::cerr << "nodeprobe agent: restart failed: " << s.message() << "\n";
}

// Failure injection: this node's rail goes down, then up (agent/link_flap.h).
void Agent::FlapLinkTask(const v1::Task& task, absl::Time deadline) {
  v1::AgentMessage reply;
  std::vector<std::string> rails;
  const v1::Registration registration = BuildRegistration();  // outlives the loop
  for (const v1::Rail& r : registration.rails()) {
    if (!r.netdev().empty()) rails.push_back(r.netdev());
  }
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  *result->mutable_result() =
      FlapLink(task.flap_link(), options_.allow_disruptive, rails, options_.self_exe, deadline);
  result->mutable_result()->set_node(options_.node_name);
  Write(reply);
}

// What the kernel said during the coordinator's window (agent/kernel_watch.h),
// judged with the task's profile; answered here, the ring is the agent's.
void Agent::KernelEventsTask(const v1::Task& task) {
  v1::AgentMessage reply;
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  v1::ProbeResult* r = result->mutable_result();
  if (options_.kernel_watch == nullptr) {
    r->set_probe("kernel-events");
    r->set_verdict(v1::SKIP);
    r->set_reason(
        "this agent does not read the kernel log (started with --kmsg \"\", or it "
        "could not open /dev/kmsg: see its log)");
  } else {
    const double window = std::max(0.0, task.kernel_events().window_s());
    absl::StatusOr<Profile> profile = ParseProfile(task.profile().yaml(), task.profile().source());
    const Profile& p = profile.ok() ? *profile : Profile();
    *r = options_.kernel_watch->Window(absl::Seconds(std::min(window, 7 * 86400.0)), p);
    FinalizeResult(p, r);
  }
  r->set_node(options_.node_name);
  Write(reply);
}

namespace {

// This node's compute rails (the ports NCCL is given: compute_rails.h)
// read when a collective rank starts; Finish() puts their error and
// congestion growth in the rank's result (judged by the coordinator:
// counter_deltas.h's JudgeCollectiveCounters). A storage or front-end NIC's
// counters are not the job's. Live /sys: the traffic is this host's even
// when probes read a capture.
class RankCounters {
 public:
  explicit RankCounters(const std::string& node) {
    const platform::FileTree sys("/sys");
    absl::StatusOr<std::vector<platform::RawRdmaDevice>> devices = platform::ReadRdmaDevices(sys);
    if (!devices.ok()) return;
    for (const rdma::ComputeRail& rail : rdma::ComputeRails(*devices, sys)) {
      sources_.push_back(std::make_unique<transfer::CounterSource>(
          transfer::RdmaCounterSource("/sys", rail.port.device, rail.port.port)));
      windows_.push_back(std::make_unique<transfer::CounterWindow>(*sources_.back(), node));
    }
  }
  void Finish(v1::ProbeResult* result) const {
    if (!result->has_collective() || result->collective().ranks_size() == 0) return;
    v1::CollectiveRank* rank = result->mutable_collective()->mutable_ranks(0);
    for (const auto& w : windows_) {
      std::string why;
      for (v1::CounterDelta& d : w->Finish(&why)) *rank->add_counters() = std::move(d);
      if (!why.empty()) rank->add_counters_unread(why);
    }
  }

 private:
  std::vector<std::unique_ptr<transfer::CounterSource>> sources_;  // windows_ refer to them
  std::vector<std::unique_ptr<transfer::CounterWindow>> windows_;
};

}  // namespace

void Agent::RunRankTask(const v1::Task& task, absl::Time deadline) {
  const RankCounters counters(options_.node_name);
  const bool nccl = task.has_run_collective();
  const std::string probe = nccl ? "nccl" : "workload-rank";
  v1::AgentMessage reply;
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  auto cancelled = [&] {
    platform::MutexLock l(&tasks_mu_);
    return cancelled_.erase(task.task_id()) > 0 || stopping_ || !connected_;
  };
  absl::StatusOr<platform::TaskWorker> worker =
      platform::TaskWorker::Start(options_.self_exe, task);
  if (!worker.ok()) {
    *result->mutable_result() =
        ErrorResult(probe, findings::kTaskFailed.code,
                    absl::StrCat("cannot start the rank's worker: ", worker.status().message()));
  }
  while (worker.ok()) {
    absl::StatusOr<v1::TaskEvent> ev =
        worker->Next(std::min(deadline, absl::Now() + absl::Milliseconds(200)));
    if (ev.ok() && ev->has_ready()) {
      v1::AgentMessage ready;
      *ready.mutable_endpoint() = ev->ready();
      ready.mutable_endpoint()->set_task_id(task.task_id());
      Write(ready);
      continue;
    }
    if (ev.ok() && ev->has_done()) {
      *result = ev->done();  // with a workload rank's report
      result->set_task_id(task.task_id());
      counters.Finish(result->mutable_result());
      break;
    }
    if (ev.ok()) continue;
    const bool waiting = absl::IsDeadlineExceeded(ev.status()) && absl::Now() < deadline;
    if (waiting && !cancelled()) continue;
    worker->Kill();
    *result->mutable_result() =
        waiting
            ? ErrorResult(probe, nccl ? findings::kNcclStopped.code : findings::kTaskFailed.code,
                          "stopped by the coordinator")
        : absl::IsDeadlineExceeded(ev.status())
            ? ErrorResult(probe, findings::kTaskTimeout.code,
                          "the rank passed its deadline and was killed")
            : ErrorResult(probe, findings::kTaskFailed.code,
                          absl::StrCat("the rank's worker ", ev.status().message()));
    break;
  }
  result->mutable_result()->set_node(options_.node_name);
  Write(reply);
}

absl::Status Agent::Session() {
  auto channel = controlplane::Dial(options_.coordinator, options_.tls);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Coordinator::NewStub(*channel);
  grpc::ClientContext ctx;
  {
    platform::MutexLock l(&mu_);
    if (stopping_) return absl::CancelledError("stopping");
    context_ = &ctx;
  }
  auto stream = stub->Connect(&ctx);
  {
    platform::MutexLock l(&write_mu_);
    stream_ = stream.get();
  }
  v1::AgentMessage hello;
  *hello.mutable_registration() = BuildRegistration();
  Write(hello);
  v1::CoordinatorMessage msg;
  absl::Duration heartbeat = absl::Seconds(10);
  std::thread beats;
  std::atomic<bool> session_over{false};
  while (stream->Read(&msg)) {
    if (msg.has_ack()) {
      ++registrations_;
      connected_ = true;
      if (options_.metrics) {
        options_.metrics->Registered();
        options_.metrics->Connected(true);
      }
      if (msg.ack().heartbeat_interval_s() > 0) {
        heartbeat = absl::Seconds(msg.ack().heartbeat_interval_s());
      }
      if (!beats.joinable()) {
        beats = std::thread([&, heartbeat] {
          v1::AgentMessage hb;
          hb.mutable_heartbeat();
          while (true) {
            {
              platform::MutexLock l(&mu_);
              if (stopping_ || session_over) break;
              cv_.WaitFor(&mu_, heartbeat);
              if (stopping_ || session_over) break;
            }
            Write(hb);
          }
        });
      }
    } else if (msg.has_task()) {
      workers_.Start([this, task = msg.task()] { HandleTask(task); });
    } else if (msg.has_cancel()) {
      platform::MutexLock l(&tasks_mu_);
      cancelled_.insert(msg.cancel().task_id());
      tasks_cv_.SignalAll();
    }
  }
  connected_ = false;
  if (options_.metrics) options_.metrics->Connected(false);
  {
    platform::MutexLock l(&mu_);
    session_over = true;
    context_ = nullptr;
    cv_.SignalAll();
  }
  if (beats.joinable()) beats.join();
  {
    platform::MutexLock l(&tasks_mu_);  // serve tasks end with the session
    tasks_cv_.SignalAll();
  }
  {
    platform::MutexLock l(&write_mu_);
    stream_ = nullptr;
  }
  grpc::Status s = stream->Finish();
  return s.ok() ? absl::OkStatus()
                : absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

void Agent::Run() {
  // A failure test interrupted with the agent (its flapper killed with the
  // unit's cgroup) left a link down: put it up before anything else.
  for (const std::string& line : RestoreLinksLeftDown()) std::cerr << "nodeprobe agent: " << line << "\n";
  std::mt19937 rng(std::random_device{}());
  absl::Duration delay = absl::Seconds(1);
  while (!stopping_) {
    const int before = registrations_.load();
    absl::Status s = Session();
    if (stopping_) break;
    if (registrations_.load() > before) delay = absl::Seconds(1);  // it had worked
    if (!s.ok()) {
      const std::string why = s.message().empty()
                                  ? absl::StrCat("the coordinator ended the stream (",
                                                 absl::StatusCodeToString(s.code()), ")")
                                  : std::string(s.message());
      fprintf(stderr, "nodeprobe agent: %s; retrying in %.1fs\n", why.c_str(),
              absl::ToDoubleSeconds(delay));
    }
    // Jitter (0.5x..1.5x) so a fleet does not reconnect in lockstep.
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    platform::MutexLock l(&mu_);
    if (!stopping_) cv_.WaitFor(&mu_, delay * jitter(rng));
    delay = std::min(delay * 2, options_.max_backoff);
  }
}

grpc::Status AgentLocalService::Status(grpc::ServerContext*, const v1::AgentStatusRequest*,
                                      v1::AgentStatus* out) {
  out->set_node_name(agent_->options().node_name);
  out->set_coordinator(agent_->options().coordinator);
  out->set_connected(agent_->connected());
  out->set_registrations(static_cast<uint32_t>(agent_->registrations()));
  return grpc::Status::OK;
}

}  // namespace nodeprobe::agent
