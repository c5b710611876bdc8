// File: coordinator_service.h
// The Coordinator gRPC service: agents' streams, stage runs, stored runs.
#pragma once

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "controlplane/credentials.h"
#include "coordinator/agent_registry.h"
#include "coordinator/coordinator_metrics.h"
#include "coordinator/run_store.h"
#include "nodeprobe/v1/service.grpc.pb.h"
#include "platform/mutex.h"

namespace nodeprobe::coordinator {

struct CoordinatorOptions {
  std::string listen = "0.0.0.0:18517";
  std::string db_path;
  controlplane::TlsFiles tls;
  absl::Duration heartbeat = absl::Seconds(10);
  // An agent silent for this long is lost.
  absl::Duration silence = absl::Seconds(30);
  // Judges runs that name no profile (source "" = none).
  v1::AcceptanceProfile default_profile;
  // Prometheus /metrics ("" = none; the CLI's default is 0.0.0.0:18520).
  std::string metrics_listen;
  // Certificate names (CN or DNS SAN) allowed to run stages and read runs
  // and nodes. With mutual TLS and none listed, nobody is: an agent's
  // certificate (any the CA signed) must not start a stage or read reports.
  std::set<std::string> operators;
};

// Connect is on the callback API (no thread per agent); the CLI-facing
// methods stay synchronous.
class RunSaver;  // coordinator_service.cc: a run's checked writes to the store

class CoordinatorService final
    : public v1::Coordinator::WithCallbackMethod_Connect<v1::Coordinator::Service> {
 public:
  CoordinatorService(RunStore* store, bool check_identity, absl::Duration heartbeat,
                     v1::AcceptanceProfile default_profile = {},
                     CoordinatorMetrics* metrics = nullptr)
      : store_(store),
        check_identity_(check_identity),
        heartbeat_(heartbeat),
        default_profile_(std::move(default_profile)),
        metrics_(metrics) {}

  grpc::ServerBidiReactor<v1::AgentMessage, v1::CoordinatorMessage>* Connect(
      grpc::CallbackServerContext* ctx) override;
  grpc::Status RunStage(grpc::ServerContext* ctx, const v1::RunStageRequest* req,
                        grpc::ServerWriter<v1::StageEvent>* writer) override;
  grpc::Status ListNodes(grpc::ServerContext* ctx, const v1::ListNodesRequest* req,
                         v1::ListNodesResponse* resp) override;
  grpc::Status ListRuns(grpc::ServerContext* ctx, const v1::ListRunsRequest* req,
                        v1::ListRunsResponse* resp) override;
  grpc::Status GetRun(grpc::ServerContext* ctx, const v1::GetRunRequest* req,
                      v1::StageRun* resp) override;
  grpc::Status CancelRun(grpc::ServerContext* ctx, const v1::CancelRunRequest* req,
                         v1::CancelRunResponse* resp) override;
  grpc::Status RecordPreflight(grpc::ServerContext* ctx, const v1::RecordPreflightRequest* req,
                               v1::RecordPreflightResponse* resp) override;

  AgentRegistry& registry() { return registry_; }
  // The coordinator is stopping: runs in flight end with COORDINATOR_LOST,
  // not with their nodes blamed for the streams that close.
  void Stopping() { stopping_ = true; }
  void SetOperators(std::set<std::string> operators) { operators_ = std::move(operators); }
  // OK for an operator (or anyone on a plaintext coordinator, a lab's);
  // PERMISSION_DENIED naming the certificate and the flag otherwise.
  grpc::Status CheckOperator(const grpc::ServerContext& ctx) const;
  // Who called, for the record: the certificate's first name, or what the
  // coordinator knows of a caller without one.
  static std::string CallerName(const grpc::ServerContext& ctx);

 private:
  // RunStage's steps: the request as it runs (a resumed run's own nodes,
  // pattern and profile), the nodes it names (--all: every live agent),
  // their sessions found, rails checked and taken for this run, a run cut
  // short said so, and the end stored and sent.
  grpc::Status ResolveRequest(const v1::RunStageRequest* req, v1::RunStageRequest* effective,
                              std::optional<v1::StageRun>* resumed);
  grpc::Status NamedNodes(const v1::RunStageRequest& req, std::vector<std::string>* names);
  grpc::Status AcquireNodes(const v1::RunStageRequest& req, const std::vector<std::string>& names,
                            std::vector<std::shared_ptr<AgentSession>>* nodes);
  void MarkCutShort(v1::StageRun* run);
  grpc::Status FinishRun(v1::StageRun run, RunSaver* saver,
                         grpc::ServerWriter<v1::StageEvent>* writer);
  // The stored cluster run `req.resume_run_id` names, when it can go on:
  // NOT_FOUND, or FAILED_PRECONDITION saying why not.
  absl::StatusOr<v1::StageRun> ResumableRun(const v1::RunStageRequest& req);

  RunStore* store_;
  bool check_identity_;
  absl::Duration heartbeat_;
  v1::AcceptanceProfile default_profile_;
  CoordinatorMetrics* metrics_;
  AgentRegistry registry_;
  std::set<std::string> operators_;
  // Runs this coordinator is executing now: a stored run left "running"
  // that is not here was interrupted (its last write failed), and resumes.
  std::atomic<bool> stopping_{false};
  platform::Mutex active_mu_;
  // Each with its nodes, so CancelRun can stop their waits and tasks, and
  // who cancelled it ("" while nobody has).
  struct ActiveRun {
    std::vector<std::shared_ptr<AgentSession>> nodes;
    std::string cancelled_by;
  };
  std::map<std::string, ActiveRun> active_runs_ ABSL_GUARDED_BY(active_mu_);
};

class BaselineService;  // baseline_service.h: served beside it

// A running coordinator: server, service, store and the reaper of silent
// agents. Blocks in Wait() until Shutdown().
class CoordinatorServer {
 public:
  static absl::StatusOr<std::unique_ptr<CoordinatorServer>> Start(const CoordinatorOptions& o);
  ~CoordinatorServer();
  int port() const { return port_; }
  void Wait();
  void Shutdown();
  int interrupted_runs() const { return store_->interrupted_on_open(); }
  int metrics_port() const { return metrics_port_; }

 private:
  CoordinatorServer() = default;
  std::unique_ptr<RunStore> store_;
  std::unique_ptr<CoordinatorMetrics> metrics_;
  int metrics_port_ = 0;
  std::unique_ptr<CoordinatorService> service_;
  std::unique_ptr<BaselineService> baselines_;
  std::unique_ptr<grpc::Server> server_;
  std::thread reaper_;
  platform::Mutex mu_;
  platform::CondVar cv_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int port_ = 0;
};


}  // namespace nodeprobe::coordinator
