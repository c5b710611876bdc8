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
#include "coordinator/baseline/baseline_judge.h"
#include "coordinator/baseline/figures.h"
#include "coordinator/baseline_service.h"
#include "coordinator/coordinator_findings.h"
#include "coordinator/pair_transfers.h"
#include "coordinator/preflight_record.h"
#include "coordinator/record_check.h"
#include "coordinator/run_pages.h"
#include "coordinator/stage_orchestrator.h"
#include "coordinator/stage_request.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/profile.h"
#include "probes/framework/result_util.h"

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

std::string CoordinatorService::CallerName(const grpc::ServerContext& ctx) {
  if (const auto auth = ctx.auth_context(); auth && auth->IsPeerAuthenticated()) {
    const std::vector<std::string> ids = controlplane::PeerNames(auth.get());
    return ids.empty() ? "authenticated, no name" : ids.front();
  }
  return "unauthenticated (plaintext coordinator)";
}

// A run's writes to the store, every one checked: the first that fails is
// said at once (log, /metrics, the client's progress) and ends the run
// "incomplete". A long stage (the cluster's rounds) is also stored as it
// goes (Checkpoint), so what was measured survives a coordinator that dies
// before the end: the first round at once, then at most every 5 s, as
// each save writes the whole run so far and a fleet's all-pairs run has
// thousands of short rounds.
class RunSaver {
 public:
  RunSaver(RunStore* store, CoordinatorMetrics* metrics) : store_(store), metrics_(metrics) {}

  void Save(const v1::StageRun& r) {
    absl::Status s = store_->Save(r);
    if (s.ok()) return;
    platform::MutexLock l(&mu_);
    if (metrics_) metrics_->StoreWriteFailed();
    if (error_.ok()) {
      error_ = s;
      std::cerr << "nodeprobe coordinator: run " << r.run_id()
                << " could not be stored: " << s.message() << "\n";
    }
  }
  void Checkpoint(const v1::StageRun& partial) {
    if (absl::Now() - last_checkpoint_ < absl::Seconds(5)) return;
    last_checkpoint_ = absl::Now();
    Save(partial);
  }
  absl::Status error() {
    platform::MutexLock l(&mu_);
    return error_;
  }
  // Not all of it is stored: the run is incomplete and says so, here and
  // in whatever the store kept (it resumes: see ResumableRun).
  void MarkIncomplete(v1::StageRun* run) {
    const absl::Status failed = error();
    if (failed.ok()) return;
    AddFinding(
        run->mutable_findings(), findings::kStoreWriteFailed.code, "coordinator",
        absl::StrCat("run ", run->run_id(), " could not be stored completely (", failed.message(),
                     "): what the client shows is all of it; the store keeps an earlier "
                     "part"));
    run->set_state("incomplete");
    run->set_verdict(WorseVerdict(run->verdict(), v1::ERROR));
    (void)store_->Save(*run);  // kept if the space came back meanwhile
  }

 private:
  RunStore* store_;
  CoordinatorMetrics* metrics_;
  platform::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  absl::Time last_checkpoint_ = absl::InfinitePast();
};

namespace {

// The run's findings without `codes`, and `code` added in their place.
void ReplaceRunFindings(v1::StageRun* run, std::initializer_list<const char*> codes,
                        const char* code, const std::string& message) {
  auto* findings = run->mutable_findings();
  findings->erase(std::remove_if(findings->begin(), findings->end(),
                                 [&](const v1::Finding& f) {
                                   for (const char* c : codes) {
                                     if (f.code() == c) return true;
                                   }
                                   return false;
                                 }),
                  findings->end());
  AddFinding(run->mutable_findings(), code, "coordinator", message);
}

// A resumed run as it goes on: its rounds' pairs kept (those to retest
// dropped), everything else judged again from them.
v1::StageRun ResumedRun(v1::StageRun stored) {
  stored.set_resumed(stored.resumed() + 1);
  stored.clear_node_reports();
  stored.clear_findings();
  stored.clear_suspects();
  stored.clear_collectives();
  auto* pairs = stored.mutable_pairs();
  pairs->erase(std::remove_if(pairs->begin(), pairs->end(),
                              [](const v1::PairResult& p) { return p.retest(); }),
               pairs->end());
  return stored;
}

// Who asked: the client certificate's identity (mTLS), kept with the run
// and with every disruptive action.
std::string OperatorIdentity(const grpc::ServerContext& ctx) {
  const auto auth = ctx.auth_context();
  if (!auth || !auth->IsPeerAuthenticated()) return "unauthenticated (plaintext coordinator)";
  const std::vector<std::string> ids = controlplane::PeerNames(auth.get());
  return ids.empty() ? "authenticated, no name" : ids.front();
}

}  // namespace

grpc::Status CoordinatorService::ResolveRequest(const v1::RunStageRequest* req,
                                                v1::RunStageRequest* effective,
                                                std::optional<v1::StageRun>* resumed) {
  *effective = *req;
  if (req->resume_run_id().empty()) return grpc::Status::OK;
  // A resumed run brings its own nodes, pattern and profile.
  absl::StatusOr<v1::StageRun> stored = ResumableRun(*req);
  if (!stored.ok()) return controlplane::ToGrpcStatus(stored.status());
  effective->clear_nodes();
  for (const std::string& n : stored->nodes()) effective->add_nodes(n);
  effective->set_all_nodes(false);
  effective->set_pattern(stored->pattern());
  *effective->mutable_profile() = stored->profile();
  *resumed = *std::move(stored);
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::NamedNodes(const v1::RunStageRequest& req,
                                            std::vector<std::string>* names) {
  // --all: every agent connected now, by name.
  names->assign(req.nodes().begin(), req.nodes().end());
  if (req.all_nodes()) {
    for (const auto& a : registry_.All()) {
      if (a->alive()) names->push_back(a->node());
    }
    std::sort(names->begin(), names->end());
  }
  if (names->empty()) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                        req.all_nodes() ? "--all: no agent is connected"
                                        : "no nodes given (--nodes A,B)");
  }
  return grpc::Status::OK;
}

grpc::Status CoordinatorService::AcquireNodes(
    const v1::RunStageRequest& req, const std::vector<std::string>& names,
    std::vector<std::shared_ptr<AgentSession>>* nodes) {
  for (const std::string& name : names) {
    for (const auto& n : *nodes) {
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
    nodes->push_back(std::move(s));
  }
  if (absl::Status rails = CheckRails(req, *nodes); !rails.ok()) {
    return controlplane::ToGrpcStatus(rails);
  }
  for (size_t i = 0; i < nodes->size(); ++i) {
    if (!(*nodes)[i]->TryAcquire()) {
      for (size_t k = 0; k < i; ++k) (*nodes)[k]->Release();
      return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          absl::StrCat("node '", (*nodes)[i]->node(), "' is running another stage"));
    }
  }
  return grpc::Status::OK;
}

void CoordinatorService::MarkCutShort(v1::StageRun* run) {
  std::string cancelled_by;
  {
    platform::MutexLock l(&active_mu_);
    cancelled_by = active_runs_[run->run_id()].cancelled_by;
  }
  if (!cancelled_by.empty()) {
    // The operator stopped it: what was measured is kept, the rest was not
    // measured, and no node is blamed for the tasks that were cut off.
    ReplaceRunFindings(run, {findings::kRunCancelled.code}, findings::kRunCancelled.code,
                       absl::StrCat("cancelled by ", cancelled_by,
                                    ": what was measured before is kept, the rest was not "
                                    "measured; the nodes are not at fault"));
    run->set_state("cancelled");
    run->set_verdict(RunVerdict(*run));
  }
  if (stopping_) {
    // The streams closed because this coordinator stopped, not because a
    // node failed: no node is blamed, and the run is said to be cut short.
    ReplaceRunFindings(run, {findings::kAgentLost.code, findings::kTaskTimeout.code},
                       findings::kCoordinatorLost.code,
                       absl::StrCat("the coordinator was stopped during run ", run->run_id(),
                                    ": what was measured before is kept, the rest was not "
                                    "measured; the nodes are not at fault"));
    run->set_state("error");
    run->set_verdict(RunVerdict(*run));
  }
}

// The accepted runs a run's baselines are built from (the newest).
constexpr int kBaselineRuns = 500;

namespace {

// What the baselines are built from: the newest accepted runs and the
// operators' marks (an unreadable store: none, so nothing is judged).
baseline::History BaselineHistory(RunStore* store) {
  baseline::History h;
  if (absl::StatusOr<std::vector<v1::StageRun>> runs = store->AcceptedRuns(kBaselineRuns);
      runs.ok()) {
    h.runs = *std::move(runs);
  }
  if (absl::StatusOr<v1::BaselineMarks> marks = store->GetBaselineMarks(); marks.ok()) {
    h.marks = baseline::MarksOf(*std::move(marks));
  }
  return h;
}

}  // namespace

grpc::Status CoordinatorService::RunStage(grpc::ServerContext* ctx,
                                          const v1::RunStageRequest* original,
                                          grpc::ServerWriter<v1::StageEvent>* writer) {
  if (grpc::Status op = CheckOperator(*ctx); !op.ok()) return op;
  v1::RunStageRequest req;
  std::optional<v1::StageRun> resumed;
  std::vector<std::string> names;
  if (grpc::Status s = ResolveRequest(original, &req, &resumed); !s.ok()) return s;
  if (absl::Status s = CheckStageOptions(req); !s.ok()) return controlplane::ToGrpcStatus(s);
  if (grpc::Status s = NamedNodes(req, &names); !s.ok()) return s;
  // The run is judged by the profile it names, else the coordinator's; one
  // that does not parse is refused before anything starts.
  const v1::AcceptanceProfile& profile =
      req.profile().yaml().empty() && req.profile().source().empty() ? default_profile_
                                                                     : req.profile();
  const absl::StatusOr<Profile> judged_by = ParseProfile(profile.yaml(), profile.source());
  if (!judged_by.ok()) return controlplane::ToGrpcStatus(judged_by.status());
  if (absl::Status s = CheckStageFits(req); !s.ok()) return controlplane::ToGrpcStatus(s);
  if (absl::Status s = CheckRequestAgainstStages(req, names.size(), *judged_by); !s.ok()) {
    return controlplane::ToGrpcStatus(s);
  }
  std::vector<std::shared_ptr<AgentSession>> nodes;
  if (grpc::Status s = AcquireNodes(req, names, &nodes); !s.ok()) return s;
  if (ctx->IsCancelled()) {  // the operator gave up before anything started
    for (const auto& a : nodes) a->Release();
    return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away before the run began");
  }
  v1::StageRun run;
  if (resumed) {
    run = ResumedRun(*std::move(resumed));
  } else {
    run.set_run_id(NewRunId());
    run.set_stage(req.stage());
    for (const auto& n : names) run.add_nodes(n);
    *run.mutable_profile() = profile;
  }
  run.set_state("running");
  run.set_operator_identity(OperatorIdentity(*ctx));
  *run.mutable_started() = StampOf(absl::Now());
  {
    platform::MutexLock l(&active_mu_);
    active_runs_[run.run_id()] = ActiveRun{nodes, ""};
  }
  RunSaver saver(store_, metrics_);
  saver.Save(run);
  platform::Mutex write_mu;
  auto progress = [&](const std::string& text) {
    v1::StageEvent ev;
    ev.set_progress(absl::StrCat("[", run.run_id(), "] ", text));
    platform::MutexLock l(&write_mu);
    writer->Write(ev);
  };
  if (absl::Status failed = saver.error(); !failed.ok()) {
    progress(absl::StrCat("warning: the run could not be stored: ", failed.message()));
  }
  absl::Time deadline = absl::Now() + absl::Seconds(req.timeout_s() > 0 ? req.timeout_s() : 600);
  if (ctx->deadline() < std::chrono::system_clock::time_point::max()) {
    deadline = std::min(deadline, absl::FromChrono(ctx->deadline()));
  }
  std::optional<baseline::History> history;
  run = RunStageOnAgents(
      run, nodes, req, *judged_by, deadline, progress,
      [&](const v1::StageRun& partial) { saver.Checkpoint(partial); },
      [this](const std::string& node) { return registry_.Find(node); },
      [this, &history]() -> const baseline::History& {
        history = BaselineHistory(store_);
        return *history;
      });
  for (const auto& a : nodes) a->Release();
  // The history read for the baseline judgement (baseline.use) also gives
  // /metrics each figure's ratio to its class's baseline.
  if (metrics_ && history && run.state() == "done") {
    const size_t min_runs = judged_by->Section<BaselineRules>().min_runs;
    for (const baseline::BaselineRatio& r :
         baseline::RatiosToBaselines(run, history->runs, min_runs, history->marks)) {
      metrics_->BaselineRatio(r.node, r.figure, r.ratio);
    }
  }
  return FinishRun(std::move(run), &saver, writer);
}

grpc::Status CoordinatorService::FinishRun(v1::StageRun run, RunSaver* saver,
                                           grpc::ServerWriter<v1::StageEvent>* writer) {
  MarkCutShort(&run);
  saver->Save(run);
  saver->MarkIncomplete(&run);
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
  const std::string who = CallerName(*ctx);
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
  s->baselines_ = std::make_unique<BaselineService>(s->store_.get(), s->service_.get());
  builder.RegisterService(s->service_.get());
  builder.RegisterService(s->baselines_.get());
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
