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
#include "platform/file_tree.h"
#include "platform/library_versions.h"
#include "platform/rdma_sysfs.h"
#include "platform/route.h"
#include "probes/framework/result_util.h"
#include "probes/framework/stage_runner.h"
#include "probes/mtu/mtu_probe.h"
#include "probes/rdma_devices/rdma_sysfs_parser.h"
#include "probes/transfer/transfer_runner.h"

namespace nodeprobe::agent {
namespace {

}  // namespace

absl::StatusOr<std::string> RunChild(const std::string& exe,
                                     const std::vector<std::string>& args,
                                     absl::Time deadline) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) return absl::ErrnoToStatus(errno, "pipe");
  pid_t pid = fork();
  if (pid < 0) return absl::ErrnoToStatus(errno, "fork");
  if (pid == 0) {
    setpgid(0, 0);  // its own group, so a kill reaches its children too
    dup2(out[1], 1);
    int null = open("/dev/null", O_RDWR);
    dup2(null, 0);
    std::vector<std::string> all = {exe};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(exe.c_str(), argv.data());
    _exit(127);
  }
  close(out[1]);
  std::string output;
  char buf[65536];
  bool timed_out = false;
  while (true) {
    absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) {
      timed_out = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    int rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) continue;
    ssize_t n = read(out[0], buf, sizeof(buf));
    if (n <= 0) break;  // EOF: the child closed stdout (exited)
    output.append(buf, static_cast<size_t>(n));
  }
  close(out[0]);
  if (timed_out) kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  if (timed_out) {
    return absl::DeadlineExceededError("the probe run passed its deadline and was killed");
  }
  if (WIFSIGNALED(status)) {
    return absl::InternalError(absl::StrCat("the probe run died with signal ", WTERMSIG(status)));
  }
  return output;
}

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
  std::lock_guard<std::mutex> l(mu_);
  if (context_) context_->TryCancel();
  cv_.notify_all();
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
  // Rails: each ACTIVE RDMA port, with the netdev and IPv4 addresses its
  // RoCE GIDs carry.
  auto devs = platform::ReadRdmaDevices(platform::FileTree("/sys"));
  if (devs.ok()) {
    for (const auto& dev : *devs) {
      for (const auto& port : dev.ports) {
        v1::Rail* rail = reg.add_rails();
        rail->set_name(absl::StrCat(dev.name, ":", port.port));
        rail->set_rdma_device(dev.name);
        rail->set_port(port.port);
        if (port.attrs.at("link_layer").value.ok()) {
          rail->set_link_layer(*port.attrs.at("link_layer").value);
        }
        if (auto rate = port.attrs.at("rate").value; rate.ok()) {
          if (auto gbps = rdma::ParseRateGbps(*rate); gbps.ok()) rail->set_rate_gbps(*gbps);
        }
        for (const auto& gid : port.gids) {
          if (!gid.gid.value.ok()) continue;
          std::string ip = rdma::GidIpv4Address(*gid.gid.value);
          if (ip.empty()) continue;
          if (gid.netdev.value.ok()) rail->set_netdev(*gid.netdev.value);
          bool seen = false;
          for (const auto& existing : rail->ipv4()) seen |= existing == ip;
          if (!seen) rail->add_ipv4(ip);
        }
      }
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
      absl::StatusOr<std::string> out = RunChild(options_.self_exe, args, deadline);
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
      auto server = transfer::TransferServer::Start(task.serve_transfer().bind_ip(), 0);
      if (!server.ok()) {
        *result->mutable_result() = ErrorResult("transfer", "TRANSFER_SERVE_FAILED",
                                                std::string(server.status().message()),
                                                "check the node's free ports");
        break;
      }
      v1::AgentMessage ready;
      ready.mutable_endpoint()->set_task_id(task.task_id());
      ready.mutable_endpoint()->set_port((*server)->port());
      transfer::TransferServer* raw = server->get();
      {
        std::lock_guard<std::mutex> l(tasks_mu_);
        servers_[task.task_id()] = *std::move(server);
      }
      Write(ready);
      raw->Serve();  // until the coordinator cancels the task
      std::lock_guard<std::mutex> l(tasks_mu_);
      servers_.erase(task.task_id());
      return;
    }
    case v1::Task::kRunTransfer: {
      const v1::RunTransfer& rt = task.run_transfer();
      transfer::TransferPlan plan;
      plan.peer = {rt.peer_host(), static_cast<uint16_t>(rt.peer_port())};
      plan.request = rt.request();
      plan.sizes.assign(rt.sizes().begin(), rt.sizes().end());
      if (plan.sizes.empty()) plan.sizes = {65536};
      v1::ProbeResult r;
      if (plan.request.transport() == v1::RDMA) {
        absl::StatusOr<platform::Egress> egress = platform::EgressTo(rt.peer_host());
        absl::StatusOr<transfer::RdmaLocal> local =
            egress.ok() ? transfer::ChooseRdmaLocal(*egress, "", std::nullopt)
                        : absl::StatusOr<transfer::RdmaLocal>(egress.status());
        if (!local.ok()) {
          r = ErrorResult("transfer", "TRANSFER_NO_RDMA_DEVICE",
                          std::string(local.status().message()),
                          "check the rail's RDMA port and its IPv4 address");
        } else {
          plan.rdma = *local;
          r = transfer::RunTransfer(plan);
        }
      } else {
        r = transfer::RunTransfer(plan);
      }
      r.set_probe("transfer");
      r.set_node(options_.node_name);
      FinalizeResult(Profile(), &r);
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
      auto it = servers_.find(msg.cancel().task_id());
      if (it != servers_.end()) it->second->Stop();
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
    std::lock_guard<std::mutex> l(tasks_mu_);
    for (auto& [id, server] : servers_) server->Stop();
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
      fprintf(stderr, "nodeprobe agent: %s; retrying in %.1fs\n",
              std::string(s.message()).c_str(), absl::ToDoubleSeconds(delay));
    }
    // Jitter (0.5x..1.5x) so a fleet does not reconnect in lockstep.
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait_for(l, absl::ToChronoNanoseconds(delay * jitter(rng)));
    delay = std::min(delay * 2, options_.max_backoff);
  }
  std::lock_guard<std::mutex> l(tasks_mu_);
  for (auto& [id, server] : servers_) server->Stop();
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
