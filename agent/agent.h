// File: agent.h
// The node daemon: dials out to the coordinator (exponential backoff with
// jitter, re-registering after a coordinator restart), holds one stream,
// and runs the typed tasks it receives. Every task (probe runs, both ends
// of transfers, path-MTU probes) runs in a worker process of this binary
// (tasks/task_launcher.h), killed at the task's deadline and with the
// agent, so a hung driver call never takes the agent with it. Idle, it
// only heartbeats.
//
// Disruptive work only with --allow-disruptive: the failure stage's
// FlapLink takes one of this node's links down for seconds through a
// detached flapper (agent/link_flap.h), which puts it and its routes back
// even if the agent dies; a flap the agent finds unfinished at start (its
// marker under the runtime directory) is undone first.
//
// Ports it opens: no TCP listener of its own toward the network (it dials
// the coordinator); the path-MTU responder on UDP 18516 (or any free port,
// announced at registration) which answers only cookie-checked probes;
// while a transfer task runs, that task's transfer server on a free port;
// and the local status/health endpoint on 127.0.0.1:18518 (--health-listen).
//
// It follows the kernel log (agent/kernel_watch.h) and tells the
// coordinator, at the end of each stage, which hardware events fired
// during it.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <memory>
#include <set>
#include <string>
#include <thread>

#include "absl/time/time.h"
#include "controlplane/credentials.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/mutex.h"
#include "platform/task_threads.h"
#include "probes/mtu/path_mtu.h"

namespace nodeprobe::agent {

struct AgentOptions {
  std::string coordinator;
  std::string node_name;
  controlplane::TlsFiles tls;
  std::string self_exe = "/proc/self/exe";  // runs tasks as `self_exe task`
  absl::Duration max_backoff = absl::Seconds(30);
  // Takes part in the failure stage (FlapLink: its links taken down on the
  // coordinator's request). Off by default: a node set aside for failure
  // tests is started with --allow-disruptive.
  bool allow_disruptive = false;
  // Probe tasks read this captured node (sys/, proc/, etc/, dcbnl/) instead
  // of the host: set on the agent's own command line only, never by a task.
  std::string capture_dir;
  // Counts sessions and tasks and keeps the last results for /metrics
  // (nullptr: none).
  class AgentMetrics* metrics = nullptr;
  // Follows the kernel log and answers KernelEventsSince (nullptr: the
  // agent does not read it, and says so).
  class KernelWatch* kernel_watch = nullptr;
};

class Agent {
 public:
  explicit Agent(AgentOptions options);
  ~Agent();
  // Connects and serves until Stop().
  void Run();
  void Stop();

  // Sessions that completed registration (for tests and logs).
  int registrations() const { return registrations_.load(); }
  bool connected() const { return connected_.load(); }
  const AgentOptions& options() const { return options_; }

 private:
  // One connection: register, then serve tasks until the stream ends.
  absl::Status Session();
  void HandleTask(const v1::Task& task);
  // One rank of a job across nodes (an NCCL collective, a workload
  // replay): rank 0's ready (NCCL's unique id, the rendezvous store's port)
  // goes out as an endpoint the moment the worker has it; a Cancel from
  // the coordinator stops it.
  void RunRankTask(const v1::Task& task, absl::Time deadline);
  // A transfer server: its endpoint goes out once it listens; it runs
  // until the coordinator cancels the task, the session ends or the deadline.
  void ServeTransferTask(const v1::Task& task, absl::Time deadline);
  void RestartAgentTask(const v1::Task& task);
  void FlapLinkTask(const v1::Task& task, absl::Time deadline);
  void KernelEventsTask(const v1::Task& task);
  void Write(const v1::AgentMessage& msg);
  v1::Registration BuildRegistration() const;

  AgentOptions options_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> registrations_{0};
  std::atomic<bool> connected_{false};
  platform::Mutex mu_;
  platform::CondVar cv_;  // Stop() and the session's end wake the waits on it
  grpc::ClientContext* context_ ABSL_GUARDED_BY(mu_) = nullptr;  // the live session's
  platform::Mutex write_mu_;  // one Write at a time on the stream
  grpc::ClientReaderWriter<v1::AgentMessage, v1::CoordinatorMessage>* stream_
      ABSL_GUARDED_BY(write_mu_) = nullptr;
  platform::Mutex tasks_mu_;
  platform::CondVar tasks_cv_;
  std::set<std::string> cancelled_ ABSL_GUARDED_BY(tasks_mu_);  // serve tasks the coordinator ended
  platform::TaskThreads workers_;
  // The path-MTU responder peers probe during two-node stages.
  std::unique_ptr<mtu::MtuResponder> mtu_responder_;
  std::thread mtu_thread_;
};

// The loopback AgentLocal service: the agent's own view of itself.
class AgentLocalService final : public v1::AgentLocal::Service {
 public:
  explicit AgentLocalService(const Agent* agent) : agent_(agent) {}
  grpc::Status Status(grpc::ServerContext* ctx, const v1::AgentStatusRequest* req,
                      v1::AgentStatus* out) override;

 private:
  const Agent* agent_;
};


}  // namespace nodeprobe::agent
