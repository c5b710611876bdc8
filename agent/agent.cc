// File: agent.cc
#include "agent/agent.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "nodeprobe_version.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "platform/child_process.h"
#include "platform/file_tree.h"
#include "platform/library_versions.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/mtu/mtu_probe.h"
#include "probes/rdma_devices/rdma_netdevs.h"
#include "probes/transfer/transfer_runner.h"  // OpName

namespace nodeprobe::agent {
namespace {

}  // namespace

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
    std::lock_guard<std::mutex> l(mu_);
    if (context_) context_->TryCancel();
    cv_.notify_all();
  }
  std::lock_guard<std::mutex> l(tasks_mu_);
  tasks_cv_.notify_all();
}

v1::Registration Agent::BuildRegistration() const {
  v1::Registration reg;
  reg.set_node_name(options_.node_name);
  reg.set_agent_version(NODEPROBE_VERSION);
  if (mtu_responder_) reg.set_mtu_port(mtu_responder_->port());
  platform::LibraryVersion verbs = platform::RdmaCoreVersion();
  v1::Component* c = reg.add_inventory();
  c->set_name("rdma_core");
  c->set_present(verbs.present);
  c->set_version(verbs.version);
  // Rails: each RDMA port, with the netdev and IPv4 addresses its RoCE GIDs
  // carry.
  auto devs = platform::ReadRdmaDevices(platform::FileTree("/sys"));
  if (devs.ok()) {
    for (const rdma::PortNetdevs& p : rdma::NetdevsOfPorts(*devs)) {
      v1::Rail* rail = reg.add_rails();
      rail->set_name(absl::StrCat(p.device, ":", p.port));
      rail->set_rdma_device(p.device);
      rail->set_port(p.port);
      rail->set_link_layer(p.link_layer);
      rail->set_rate_gbps(p.rate_gbps);
      if (!p.netdevs.empty()) rail->set_netdev(p.netdevs.front());
      for (const std::string& ip : p.ipv4) rail->add_ipv4(ip);
    }
  }
  return reg;
}

void Agent::Write(const v1::AgentMessage& msg) {
  std::lock_guard<std::mutex> l(write_mu_);
  if (stream_) stream_->Write(msg);
}

void Agent::HandleTask(const v1::Task& task) {
  const absl::Time deadline = absl::Now() + absl::Seconds(task.deadline_s() > 0 ? task.deadline_s() : 600);
  v1::AgentMessage reply;
  v1::TaskResult* result = reply.mutable_result();
  result->set_task_id(task.task_id());
  switch (task.kind_case()) {
    case v1::Task::kRunProbes: {
      std::vector<std::string> args = {"run", "--stage", "single-node", "--format", "json",
                                       "--node-name", options_.node_name, "--timeout",
                                       absl::StrCat(std::max(1.0, task.deadline_s()))};
      for (const std::string& p : task.run_probes().probes()) {
        args.push_back("--probe");
        args.push_back(p);
      }
      absl::StatusOr<std::string> out = platform::RunChild(options_.self_exe, args, deadline);
      v1::StageReport report;
      if (!out.ok()) {
        report.set_stage(v1::SINGLE_NODE);
        report.set_node(options_.node_name);
        report.set_verdict(v1::ERROR);
        *report.add_results() = ErrorResult(
            "single-node",
            out.status().code() == absl::StatusCode::kDeadlineExceeded ? "TASK_TIMEOUT"
                                                                       : "TASK_FAILED",
            std::string(out.status().message()), "check the node; raise the stage --timeout");
      } else if (!google::protobuf::util::JsonStringToMessage(*out, &report).ok()) {
        report.set_verdict(v1::ERROR);
        *report.add_results() = ErrorResult("single-node", "TASK_FAILED",
                                            "the probe run printed no report",
                                            "run `nodeprobe run --stage single-node` on the node");
      }
      result->mutable_result()->set_probe("single-node");
      result->mutable_result()->set_verdict(report.verdict());
      *result->mutable_report() = report;
      break;
    }
    case v1::Task::kServeTransfer: {
      // The server runs as a child (RDMA verbs may hang in a driver): its
      // first line names the port; it is killed when the task is cancelled
      // or its deadline passes.
      std::vector<std::string> args = {"transfer", "serve", "--port", "0"};
      if (!task.serve_transfer().bind_ip().empty()) {
        args.push_back("--bind");
        args.push_back(task.serve_transfer().bind_ip());
      }
      absl::StatusOr<platform::ChildProcess> child =
          platform::ChildProcess::Start(options_.self_exe, args);
      absl::StatusOr<std::string> line =
          child.ok() ? child->ReadLine(deadline) : absl::StatusOr<std::string>(child.status());
      uint32_t port = 0;
      if (!line.ok() || !absl::SimpleAtoi(line->substr(line->rfind(':') + 1), &port)) {
        *result->mutable_result() = ErrorResult(
            "transfer", "TRANSFER_SERVE_FAILED",
            line.ok() ? absl::StrCat("unexpected server output: ", *line)
                      : std::string(line.status().message()),
            "check the node's free ports");
        break;
      }
      v1::AgentMessage ready;
      ready.mutable_endpoint()->set_task_id(task.task_id());
      ready.mutable_endpoint()->set_port(port);
      Write(ready);
      std::unique_lock<std::mutex> l(tasks_mu_);
      cancelled_.erase(task.task_id());
      tasks_cv_.wait_until(l, absl::ToChronoTime(deadline), [&] {
        return stopping_ || !connected_ || cancelled_.count(task.task_id()) > 0;
      });
      cancelled_.erase(task.task_id());
      return;  // the child is killed as `child` goes out of scope
    }
    case v1::Task::kRunTransfer: {
      // As a child too: `nodeprobe transfer run`, killed at the deadline.
      const v1::RunTransfer& rt = task.run_transfer();
      const v1::TransferRequest& req = rt.request();
      std::vector<std::string> args = {
          "transfer", "run", "--peer", absl::StrCat(rt.peer_host(), ":", rt.peer_port()),
          "--transport", req.transport() == v1::RDMA ? "rdma" : "tcp",
          "--op", transfer::OpName(req.op()), "--format", "json",
          "--duration", absl::StrCat(std::max(0.05, req.duration_s())),
          "--streams", absl::StrCat(std::max<uint32_t>(1, req.streams()))};
      if (req.tx_depth() > 0) {
        args.push_back("--tx-depth");
        args.push_back(absl::StrCat(req.tx_depth()));
      }
      if (rt.sizes_size() > 0) {
        args.push_back("--size");
        args.push_back(absl::StrJoin(rt.sizes(), ","));
      }
      absl::StatusOr<std::string> out = platform::RunChild(options_.self_exe, args, deadline);
      v1::ProbeResult r;
      if (!out.ok()) {
        r = ErrorResult("transfer",
                        out.status().code() == absl::StatusCode::kDeadlineExceeded
                            ? "TASK_TIMEOUT"
                            : "TASK_FAILED",
                        std::string(out.status().message()), "check the node and the rail");
      } else if (!google::protobuf::util::JsonStringToMessage(*out, &r).ok()) {
        r = ErrorResult("transfer", "TASK_FAILED", "the transfer printed no result",
                        "run `nodeprobe transfer run` on the node by hand");
      }
      r.set_node(options_.node_name);
      *result->mutable_result() = r;
      break;
    }
    case v1::Task::kRunPathMtu: {
      mtu::PathProbeOptions po;
      po.peer_ip = task.run_path_mtu().peer_host();
      po.port = static_cast<uint16_t>(task.run_path_mtu().peer_port());
      po.deadline = deadline;
      absl::StatusOr<v1::MtuReport> report = mtu::MeasurePathMtu(po);
      v1::ProbeResult r;
      if (!report.ok()) {
        r = ErrorResult("mtu", "MTU_PROBE_FAILED", std::string(report.status().message()),
                        "check that UDP reaches the peer's agent");
      } else {
        r.set_probe("mtu");
        *r.mutable_mtu() = *report;
        JudgePath(*report, &r);
      }
      r.set_node(options_.node_name);
      FinalizeResult(Profile(), &r);
      *result->mutable_result() = r;
      break;
    }
    default:
      *result->mutable_result() = ErrorResult(
          "task", "UNKNOWN_TASK", "unknown task type (coordinator newer than this agent?)",
          "upgrade the agent");
  }
  Write(reply);
}

absl::Status Agent::Session() {
  auto channel = coordinator::Dial(options_.coordinator, options_.tls);
  if (!channel.ok()) return channel.status();
  auto stub = v1::Coordinator::NewStub(*channel);
  grpc::ClientContext ctx;
  {
    std::lock_guard<std::mutex> l(mu_);
    if (stopping_) return absl::CancelledError("stopping");
    context_ = &ctx;
  }
  auto stream = stub->Connect(&ctx);
  {
    std::lock_guard<std::mutex> l(write_mu_);
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
      if (msg.ack().heartbeat_interval_s() > 0) {
        heartbeat = absl::Seconds(msg.ack().heartbeat_interval_s());
      }
      if (!beats.joinable()) {
        beats = std::thread([&, heartbeat] {
          std::unique_lock<std::mutex> l(mu_);
          while (!stopping_ && !session_over) {
            cv_.wait_for(l, absl::ToChronoNanoseconds(heartbeat));
            if (stopping_ || session_over) break;
            v1::AgentMessage hb;
            hb.mutable_heartbeat();
            l.unlock();
            Write(hb);
            l.lock();
          }
        });
      }
    } else if (msg.has_task()) {
      workers_.Start([this, task = msg.task()] { HandleTask(task); });
    } else if (msg.has_cancel()) {
      std::lock_guard<std::mutex> l(tasks_mu_);
      cancelled_.insert(msg.cancel().task_id());
      tasks_cv_.notify_all();
    }
  }
  connected_ = false;
  {
    std::lock_guard<std::mutex> l(mu_);
    session_over = true;
    context_ = nullptr;
    cv_.notify_all();
  }
  if (beats.joinable()) beats.join();
  {
    std::lock_guard<std::mutex> l(tasks_mu_);  // serve tasks end with the session
    tasks_cv_.notify_all();
  }
  {
    std::lock_guard<std::mutex> l(write_mu_);
    stream_ = nullptr;
  }
  grpc::Status s = stream->Finish();
  return s.ok() ? absl::OkStatus()
                : absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
}

void Agent::Run() {
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
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, absl::ToChronoNanoseconds(delay * jitter(rng)));
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
