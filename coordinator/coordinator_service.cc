// File: coordinator_service.cc
#include "coordinator/coordinator_service.h"

#include <google/protobuf/util/time_util.h>
#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "controlplane/grpc_status.h"
#include "controlplane/server_limits.h"
#include "coordinator/agent_reactor.h"
#include "coordinator/preflight_record.h"
#include "coordinator/record_check.h"
#include "coordinator/run_pages.h"
#include "coordinator/stage_orchestrator.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"
#include "probes/storage/storage_profile.h"

namespace nodeprobe::coordinator {
namespace {

std::string NewRunId() {
  std::random_device rd;
  return absl::StrCat(absl::FormatTime("%Y%m%d-%H%M%S", absl::Now(), absl::UTCTimeZone()), "-",
                      absl::Hex(rd() & 0xffff, absl::kZeroPad4));
}

}  // namespace

grpc::ServerBidiReactor<v1::AgentMessage, v1::CoordinatorMessage>* CoordinatorService::Connect(
    grpc::CallbackServerContext* ctx) {
  return new AgentReactor(ctx, &registry_, check_identity_, heartbeat_);
}

grpc::Status CoordinatorService::CheckOperator(const grpc::ServerContext& ctx) const {
  if (!check_identity_) return grpc::Status::OK;  // plaintext: a lab, said at start
  const std::vector<std::string> names = controlplane::PeerNames(ctx.auth_context().get());
  for (const std::string& n : names) {
    if (operators_.count(n)) return grpc::Status::OK;
  }
  return grpc::Status(
      grpc::StatusCode::PERMISSION_DENIED,
      absl::StrCat("certificate ", names.empty() ? "(no CN or DNS name)" : absl::StrJoin(names, "/"),
                   " is not an operator of this coordinator (agents' certificates only "
                   "register; start the coordinator with --operator NAME for an operator's)"));
}

grpc::Status CoordinatorService::RunStage(grpc::ServerContext* ctx,
                                          const v1::RunStageRequest* req,
                                          grpc::ServerWriter<v1::StageEvent>* writer) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  // A resumed run brings its own nodes, pattern and profile.
  v1::RunStageRequest effective;
  std::optional<v1::StageRun> resumed;
  if (!req->resume_run_id().empty()) {
    absl::StatusOr<v1::StageRun> stored = ResumableRun(*req);
    if (!stored.ok()) {
      return controlplane::ToGrpcStatus(stored.status());
    }
    effective = *req;
    effective.clear_nodes();
    for (const std::string& n : stored->nodes()) effective.add_nodes(n);
    effective.set_all_nodes(false);
    effective.set_pattern(stored->pattern());
    *effective.mutable_profile() = stored->profile();
    resumed = *std::move(stored);
    req = &effective;
  }
  if (req->stage() == v1::TWO_NODE && req->nodes_size() != 2) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("two-node needs exactly 2 nodes, got ", req->nodes_size()));
  }
  const bool fleet_stage = req->stage() == v1::CLUSTER || req->stage() == v1::CONGESTION;
  if (req->all_nodes() && (!fleet_stage || req->nodes_size() > 0)) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "--all is for the cluster and congestion stages, instead of --nodes");
  }
  if (!req->pattern().empty() &&
      (req->stage() != v1::CLUSTER || (req->pattern() != "all-pairs" && req->pattern() != "ring"))) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("pattern '", req->pattern(),
                                     "': the cluster stage takes all-pairs or ring"));
  }
  // --all: every agent connected now, by name.
  std::vector<std::string> names(req->nodes().begin(), req->nodes().end());
  if (req->all_nodes()) {
    for (const auto& a : registry_.All()) {
      if (a->alive()) names.push_back(a->node());
    }
    std::sort(names.begin(), names.end());
  }
  if (names.empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        req->all_nodes() ? "--all: no agent is connected"
                                         : "no nodes given (--nodes A,B)");
  }
  if (req->stage() == v1::CLUSTER && names.size() < 2) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("the cluster stage needs at least 2 nodes, got ",
                                     names.size()));
  }
  if (req->stage() == v1::FAILURE && !req->allow_disruptive()) {
    return grpc::Status(grpc::StatusCode::FAILED_PRECONDITION,
                        "the failure stage takes links down: it runs only with "
                        "--allow-disruptive (and agents started with --allow-disruptive)");
  }
  if (req->stage() == v1::FAILURE && names.size() != 2) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("the failure stage needs exactly 2 nodes, got ", names.size()));
  }
  if (req->stage() == v1::CONGESTION && names.size() < 3) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        absl::StrCat("the congestion stage needs at least 3 nodes, got ",
                                     names.size()));
  }
  if (!std::isfinite(req->timeout_s()) || req->timeout_s() < 0 || req->timeout_s() > 86400) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        "timeout must be a number of seconds up to 86400");
  }
  if (req->soak_s() != 0) {
    if (req->stage() != v1::TWO_NODE && req->stage() != v1::CLUSTER) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "--soak repeats the transfers of the two-node and cluster stages: run "
                          "it with --stage two-node or cluster");
    }
    const double timeout = req->timeout_s() > 0 ? req->timeout_s() : 600;
    if (!std::isfinite(req->soak_s()) || req->soak_s() < 0 || req->soak_s() + 60 > timeout) {
      return grpc::Status(
          grpc::StatusCode::INVALID_ARGUMENT,
          absl::StrFormat("a soak of %.0f s needs a --timeout at least 60 s longer (it is %.0f s)",
                          req->soak_s(), timeout));
    }
  }
  // The run is judged by the profile it names, else the coordinator's; one
  // that does not parse is refused before anything starts.
  const v1::AcceptanceProfile& profile =
      req->profile().yaml().empty() && req->profile().source().empty() ? default_profile_
                                                                       : req->profile();
  const absl::StatusOr<Profile> judged_by = ParseProfile(profile.yaml(), profile.source());
  if (!judged_by.ok()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        std::string(judged_by.status().message()));
  }
  if (req->storage_storm()) {
    if (req->stage() != v1::CLUSTER) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "--storage-storm is an option of the cluster stage: run it with "
                          "--stage cluster");
    }
    if (StorageRulesOf(*judged_by).paths.empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "--storage-storm needs the shared checkpoint path in the profile "
                          "(storage.paths; the first is used)");
    }
  }
  std::vector<std::shared_ptr<AgentSession>> nodes;
  for (const std::string& name : names) {
    for (const auto& n : nodes) {
      if (n->node() == name) {
        return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                            absl::StrCat("node '", name, "' is named twice"));
      }
    }
    std::shared_ptr<AgentSession> s = registry_.Find(name);
    if (!s || !s->alive()) {
      std::vector<std::string> known;
      for (const auto& a : registry_.All()) known.push_back(a->node());
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("no agent connected as '", name, "' (connected: ",
                                       known.empty() ? "none" : absl::StrJoin(known, ", "), ")"));
    }
    nodes.push_back(std::move(s));
  }
  if (absl::Status rails = CheckRails(*req, nodes); !rails.ok()) {
    return controlplane::ToGrpcStatus(rails);
  }
  std::vector<std::shared_ptr<AgentSession>> acquired;
  for (const auto& s : nodes) {
    if (!s->TryAcquire()) {
      for (const auto& a : acquired) a->Release();
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("node '", s->node(), "' is running another stage"));
    }
    acquired.push_back(s);
  }
  if (ctx->IsCancelled()) {  // the operator gave up before anything started
    for (const auto& a : acquired) a->Release();
    return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away before the run began");
  }
  v1::StageRun run;
  if (resumed) {
    // Kept: the rounds' pairs. Judged again from them: everything else.
    run = *std::move(resumed);
    run.set_resumed(run.resumed() + 1);
    run.clear_node_reports();
    run.clear_findings();
    run.clear_suspects();
    run.clear_collectives();
    auto* pairs = run.mutable_pairs();
    pairs->erase(std::remove_if(pairs->begin(), pairs->end(),
                                [](const v1::PairResult& p) { return p.retest(); }),
                 pairs->end());
  } else {
    run.set_run_id(NewRunId());
    run.set_stage(req->stage());
    for (const auto& n : names) run.add_nodes(n);
    *run.mutable_profile() = profile;
  }
  run.set_state("running");
  // Who asked: the client certificate's identity (mTLS), kept with the run
  // and with every disruptive action.
  if (const auto auth = ctx->auth_context(); auth && auth->IsPeerAuthenticated()) {
    const std::vector<std::string> ids = controlplane::PeerNames(auth.get());
    run.set_operator_identity(ids.empty() ? "authenticated, no name" : ids.front());
  } else {
    run.set_operator_identity("unauthenticated (plaintext coordinator)");
  }
  *run.mutable_started() = StampOf(absl::Now());
  {
    platform::MutexLock l(&active_mu_);
    active_runs_[run.run_id()] = ActiveRun{nodes, ""};
  }
  // Every write is checked: the first that fails is said at once (log,
  // /metrics, the client's progress) and ends the run "incomplete".
  absl::Status store_error;
  platform::Mutex store_mu;
  auto save = [&](const v1::StageRun& r) {
    absl::Status s = store_->Save(r);
    if (s.ok()) return;
    platform::MutexLock l(&store_mu);
    if (metrics_) metrics_->StoreWriteFailed();
    if (store_error.ok()) {
      store_error = s;
      std::cerr << "nodeprobe coordinator: run " << r.run_id()
                << " could not be stored: " << s.message() << "\n";
    }
  };
  save(run);
  platform::Mutex write_mu;
  auto progress = [&](const std::string& text) {
    v1::StageEvent ev;
    ev.set_progress(absl::StrCat("[", run.run_id(), "] ", text));
    platform::MutexLock l(&write_mu);
    writer->Write(ev);
  };
  {
    platform::MutexLock l(&store_mu);
    if (!store_error.ok()) {
      progress(absl::StrCat("warning: the run could not be stored: ", store_error.message()));
    }
  }
  const double timeout = req->timeout_s() > 0 ? req->timeout_s() : 600;
  absl::Time deadline = absl::Now() + absl::Seconds(timeout);
  if (ctx->deadline() < std::chrono::system_clock::time_point::max()) {
    deadline = std::min(deadline, absl::FromChrono(ctx->deadline()));
  }
  // A long stage (the cluster's rounds) is stored as it goes: what was
  // measured survives a coordinator that dies before the end.
  // The first round at once, then at most every 5 s: each save writes the
  // whole run so far, and a fleet's all-pairs run has thousands of short
  // rounds.
  absl::Time last_checkpoint = absl::InfinitePast();
  auto checkpoint = [&](const v1::StageRun& partial) {
    if (absl::Now() - last_checkpoint < absl::Seconds(5)) return;
    last_checkpoint = absl::Now();
    save(partial);
  };
  run = RunStageOnAgents(run, nodes, *req, *judged_by, deadline, progress, checkpoint,
                         [this](const std::string& node) { return registry_.Find(node); });
  for (const auto& a : acquired) a->Release();
  std::string cancelled_by;
  {
    platform::MutexLock l(&active_mu_);
    cancelled_by = active_runs_[run.run_id()].cancelled_by;
  }
  if (!cancelled_by.empty()) {
    // The operator stopped it: what was measured is kept, the rest was not
    // measured, and no node is blamed for the tasks that were cut off.
    auto* findings = run.mutable_findings();
    findings->erase(std::remove_if(findings->begin(), findings->end(),
                                   [](const v1::Finding& f) {
                                     return f.code() == "RUN_CANCELLED";
                                   }),
                    findings->end());
    AddFinding(run.mutable_findings(), "RUN_CANCELLED", "coordinator",
               absl::StrCat("cancelled by ", cancelled_by,
                            ": what was measured before is "
                            "kept, the rest was not measured; the nodes are not at fault"));
    run.set_state("cancelled");
    run.set_verdict(RunVerdict(run));
  }
  if (stopping_) {
    // The streams closed because this coordinator stopped, not because a
    // node failed: no node is blamed, and the run is said to be cut short.
    auto* findings = run.mutable_findings();
    findings->erase(std::remove_if(findings->begin(), findings->end(),
                                   [](const v1::Finding& f) {
                                     return f.code() == "AGENT_LOST" || f.code() == "TASK_TIMEOUT";
                                   }),
                    findings->end());
    AddFinding(run.mutable_findings(), "COORDINATOR_LOST", "coordinator",
               absl::StrCat("the coordinator was stopped during run ", run.run_id(),
                            ": what was measured before is kept, the rest was not measured; "
                            "the nodes are not at fault"));
    run.set_state("error");
    run.set_verdict(RunVerdict(run));
  }
  save(run);
  // Not all of it is stored: the run is incomplete and says so, here and
  // in whatever the store kept (it resumes: see ResumableRun).
  {
    platform::MutexLock l(&store_mu);
    if (!store_error.ok()) {
      AddFinding(run.mutable_findings(), "STORE_WRITE_FAILED", "coordinator",
                 absl::StrCat("run ", run.run_id(), " could not be stored completely (",
                              store_error.message(),
                              "): what the client shows is all of it; "
                              "the store keeps an earlier part"));
      run.set_state("incomplete");
      run.set_verdict(WorseVerdict(run.verdict(), v1::ERROR));
      (void)store_->Save(run);  // kept if the space came back meanwhile
    }
  }
  {
    platform::MutexLock l(&active_mu_);
    active_runs_.erase(run.run_id());
  }
  if (metrics_) {
    metrics_->StageFinished(run.stage(), run.verdict(),
                            absl::Seconds(run.finished().seconds() - run.started().seconds()));
  }
  // A run too large for one message goes out as its first page; the
  // client asks GetRun for the rest.
  v1::StageEvent last;
  *last.mutable_run() = run.ByteSizeLong() > kRunPageBytes ? RunPage(run, 0, 0) : run;
  writer->Write(last);
  return grpc::Status::OK;
}

absl::StatusOr<v1::StageRun> CoordinatorService::ResumableRun(const v1::RunStageRequest& req) {
  if (req.stage() != v1::CLUSTER) {
    return absl::FailedPreconditionError("only cluster runs resume (--stage cluster --resume ID)");
  }
  absl::StatusOr<v1::StageRun> stored = store_->Get(req.resume_run_id());
  if (!stored.ok()) return stored.status();
  if (stored->stage() != v1::CLUSTER) {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", req.resume_run_id(), " is a ", StageName(stored->stage()),
                     " run; only cluster runs resume"));
  }
  if (stored->state() == "done") {
    return absl::FailedPreconditionError(
        absl::StrCat("run ", req.resume_run_id(), " finished; there is nothing to resume"));
  }
  if (stored->state() == "running") {
    // Still "running" in the store but not running here: its last write
    // failed (a full disk), or this coordinator never finished it.
    platform::MutexLock l(&active_mu_);
    if (active_runs_.count(req.resume_run_id()) > 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("run ", req.resume_run_id(), " is still running"));
    }
  }
  return stored;
}

grpc::Status CoordinatorService::ListNodes(grpc::ServerContext* ctx, const v1::ListNodesRequest*,
                                           v1::ListNodesResponse* resp) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  absl::StatusOr<std::map<std::string, LastReport>> last = store_->LastReports();
  if (!last.ok()) {
    return controlplane::ToGrpcStatus(last.status());
  }
  for (const auto& s : registry_.All()) {
    v1::NodeInfo* n = resp->add_nodes();
    if (auto it = last->find(s->node()); it != last->end()) {
      n->set_last_run_id(it->second.run_id);
      n->set_last_stage(it->second.stage);
      n->set_last_verdict(it->second.verdict);
      n->mutable_last_report()->set_seconds(it->second.finished);
      *n->mutable_last_inventory() = it->second.inventory.components();
      *n->mutable_last_config() = it->second.config.settings();
    }
    n->set_name(s->node());
    n->set_connected(s->alive());
    n->set_busy(s->busy());
    n->set_address(s->address());
    *n->mutable_registration() = s->registration();
    *n->mutable_last_heartbeat() = StampOf(s->last_heartbeat());
  }
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::ListRuns(grpc::ServerContext* ctx, const v1::ListRunsRequest* req,
                                          v1::ListRunsResponse* resp) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  auto runs = store_->List(req->limit() ? static_cast<int>(req->limit()) : 100);
  if (!runs.ok()) return controlplane::ToGrpcStatus(runs.status());
  for (auto& r : *runs) *resp->add_runs() = std::move(r);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::GetRun(grpc::ServerContext* ctx, const v1::GetRunRequest* req,
                                        v1::StageRun* resp) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  auto run = store_->Get(req->run_id());
  if (!run.ok()) {
    return controlplane::ToGrpcStatus(run.status());
  }
  *resp = RunPage(*run, req->reports_offset(), req->pairs_offset());
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::CancelRun(grpc::ServerContext* ctx,
                                           const v1::CancelRunRequest* req,
                                           v1::CancelRunResponse* resp) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  std::string who = "unauthenticated (plaintext coordinator)";
  if (const auto auth = ctx->auth_context(); auth && auth->IsPeerAuthenticated()) {
    const std::vector<std::string> ids = controlplane::PeerNames(auth.get());
    who = ids.empty() ? "authenticated, no name" : ids.front();
  }
  std::vector<std::shared_ptr<AgentSession>> nodes;
  {
    platform::MutexLock l(&active_mu_);
    auto it = active_runs_.find(req->run_id());
    if (it == active_runs_.end()) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          absl::StrCat("run '", req->run_id(), "' is not running on this "
                                       "coordinator (finished, or unknown: nodeprobe runs)"));
    }
    if (it->second.cancelled_by.empty()) it->second.cancelled_by = who;
    nodes = it->second.nodes;
  }
  std::vector<std::string> names;
  for (const auto& n : nodes) {
    n->CancelStage();  // its waits end now, its agent's tasks are cancelled
    names.push_back(n->node());
  }
  std::cerr << "nodeprobe coordinator: run " << req->run_id() << " cancelled by " << who << "\n";
  resp->set_message(absl::StrCat("cancelling run ", req->run_id(), " on ",
                                 absl::StrJoin(names, ", ")));
  return grpc::Status::OK;
}

absl::StatusOr<std::unique_ptr<CoordinatorServer>> CoordinatorServer::Start(
    const CoordinatorOptions& o) {
  std::unique_ptr<CoordinatorServer> s(new CoordinatorServer());
  auto store = RunStore::Open(o.db_path.empty() ? DefaultDbPath() : o.db_path);
  if (!store.ok()) return store.status();
  s->store_ = *std::move(store);
  auto creds = controlplane::ServerCredentials(o.tls);
  if (!creds.ok()) return creds.status();
  if (absl::StatusOr<Profile> parsed =
          ParseProfile(o.default_profile.yaml(), o.default_profile.source());
      !parsed.ok()) {
    return parsed.status();
  }
  if (!o.metrics_listen.empty()) {
    s->metrics_ = std::make_unique<CoordinatorMetrics>();
    absl::StatusOr<int> port = s->metrics_->Serve(o.metrics_listen);
    if (!port.ok()) return port.status();
    s->metrics_port_ = *port;
  }
  s->service_ = std::make_unique<CoordinatorService>(s->store_.get(), !o.tls.insecure,
                                                     o.heartbeat, o.default_profile,
                                                     s->metrics_.get());
  s->service_->SetOperators(o.operators);
  if (CoordinatorMetrics* m = s->metrics_.get(); m != nullptr) {
    s->service_->registry().set_task_observer(
        [m](const std::string& kind, absl::Duration took) { m->TaskAnswered(kind, took); });
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  builder.AddListeningPort(o.listen, *creds, &s->port_);
  builder.RegisterService(s->service_.get());
  controlplane::ApplyServerLimits(&builder);
  s->server_ = builder.BuildAndStart();
  if (!s->server_ || s->port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", o.listen, " (address in use or not local?)"));
  }
  CoordinatorServer* self = s.get();
  const absl::Duration silence = o.silence;
  const std::string db_path = o.db_path.empty() ? DefaultDbPath() : o.db_path;
  auto refresh = [self, db_path] {
    if (!self->metrics_) return;
    size_t connected = 0, busy = 0;
    for (const auto& a : self->service_->registry().All()) {
      connected += a->alive();
      busy += a->busy();
    }
    self->metrics_->Agents(connected, busy);
    double bytes = 0;
    for (const char* suffix : {"", "-wal"}) {
      std::error_code ec;
      const auto size = std::filesystem::file_size(db_path + suffix, ec);
      if (!ec) bytes += static_cast<double>(size);
    }
    self->metrics_->StoreBytes(bytes);
  };
  refresh();
  s->reaper_ = std::thread([self, silence, refresh] {
    while (true) {
      {
        platform::MutexLock l(&self->mu_);  // guards only stopping_
        if (self->stopping_) break;
        self->cv_.WaitFor(&self->mu_, silence / 3);
        if (self->stopping_) break;
      }
      self->service_->registry().ReapSilent(silence);
      refresh();
      // Builds on glibc's allocator (NODEPROBE_JEMALLOC=OFF): gRPC frees
      // what a flood of connections held, but glibc keeps the freed pages
      // in its arenas; hand them back (bench/stranger_flood.sh, glibc: 5.6x
      // idle without this after 8 waves of 3000 junk connections, 1.64x
      // with). The builds we ship use jemalloc, which returns them itself
      // (1.10x; cli/allocator_config.cc); there this is a no-op.
      malloc_trim(0);
    }
  });
  return s;
}

void CoordinatorServer::Wait() { server_->Wait(); }

void CoordinatorServer::Shutdown() {
  {
    platform::MutexLock l(&mu_);
    if (stopping_) return;
    stopping_ = true;
    cv_.SignalAll();
  }
  // Start() may have failed before the service or the server existed: its
  // error is the one-line message, never a crash on the way out.
  if (service_) {
    service_->Stopping();
    for (const auto& a : service_->registry().All()) a->Lose();
  }
  if (server_) server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

CoordinatorServer::~CoordinatorServer() {
  Shutdown();
  if (reaper_.joinable()) reaper_.join();
}

grpc::Status CoordinatorService::RecordPreflight(grpc::ServerContext* ctx,
                                                 const v1::RecordPreflightRequest* req,
                                                 v1::RecordPreflightResponse* resp) {
  Sender sender;
  sender.check_identity = check_identity_;
  sender.is_operator = CheckOperator(*ctx).ok();
  if (const auto auth = ctx->auth_context(); auth && auth->IsPeerAuthenticated()) {
    sender.names = controlplane::PeerNames(auth.get());
  }
  absl::StatusOr<v1::StageRun> run =
      PreflightRun(*req, sender, absl::StrCat("preflight-", NewRunId()));
  if (!run.ok()) return controlplane::ToGrpcStatus(run.status());
  if (absl::Status saved = store_->Save(*run); !saved.ok()) {
    return controlplane::ToGrpcStatus(saved);
  }
  resp->set_run_id(run->run_id());
  return grpc::Status::OK;
}

}  // namespace nodeprobe::coordinator
