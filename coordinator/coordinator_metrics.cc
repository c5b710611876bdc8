#include "coordinator/coordinator_metrics.h"

#include "controlplane/metrics_http.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::coordinator {

CoordinatorMetrics::CoordinatorMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  auto& agents = prometheus::BuildGauge()
                     .Name("nodeprobe_coordinator_agents")
                     .Help("Agents connected, and of those busy with a stage.")
                     .Register(*registry_);
  connected_ = &agents.Add({{"state", "connected"}});
  busy_ = &agents.Add({{"state", "busy"}});
  runs_ = &prometheus::BuildCounter()
               .Name("nodeprobe_coordinator_stage_runs_total")
               .Help("Stage runs finished, by stage and verdict.")
               .Register(*registry_);
  duration_ = &prometheus::BuildHistogram()
                   .Name("nodeprobe_coordinator_stage_duration_seconds")
                   .Help("How long stage runs took.")
                   .Register(*registry_);
  store_ = &prometheus::BuildGauge()
                .Name("nodeprobe_coordinator_store_bytes")
                .Help("The run store's size on disk (database and WAL).")
                .Register(*registry_)
                .Add({});
  store_failures_ = &prometheus::BuildCounter()
                       .Name("nodeprobe_coordinator_store_write_failures_total")
                       .Help("Writes of a run to the store that failed (disk full, I/O error).")
                       .Register(*registry_)
                       .Add({});
  tasks_ = &prometheus::BuildHistogram()
                .Name("nodeprobe_coordinator_task_seconds")
                .Help("From sending a task to an agent to its result, by the task's kind.")
                .Register(*registry_);
  baseline_ratio_ = &prometheus::BuildGauge()
                         .Name("nodeprobe_baseline_ratio")
                         .Help(
                             "A figure in the node's last accepted run over its node class's "
                             "baseline median (1 = as the class measures; below 1 is worse "
                             "for a bandwidth, better for a latency or step time).")
                         .Register(*registry_);
}

absl::StatusOr<int> CoordinatorMetrics::Serve(const std::string& listen) {
  absl::StatusOr<controlplane::MetricsEndpoint> e = controlplane::ServeMetrics(listen, registry_);
  if (!e.ok()) return e.status();
  exposer_ = std::move(e->exposer);
  return e->port;
}

void CoordinatorMetrics::Agents(size_t connected, size_t busy) {
  connected_->Set(static_cast<double>(connected));
  busy_->Set(static_cast<double>(busy));
}

void CoordinatorMetrics::StageFinished(v1::Stage stage, v1::Verdict verdict, absl::Duration took) {
  runs_->Add({{"stage", StageName(stage)}, {"verdict", VerdictName(verdict)}}).Increment();
  // 1 s to 6 h: a single-node stage to a fleet's all-pairs run.
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      1, 5, 15, 60, 300, 900, 3600, 4 * 3600.0, 6 * 3600.0};
  duration_->Add({{"stage", StageName(stage)}}, kBuckets).Observe(absl::ToDoubleSeconds(took));
}

void CoordinatorMetrics::StoreBytes(double bytes) { store_->Set(bytes); }
void CoordinatorMetrics::StoreWriteFailed() { store_failures_->Increment(); }

void CoordinatorMetrics::TaskAnswered(const std::string& kind, absl::Duration took) {
  // 10 ms (a path-MTU probe on a quiet fabric) to 30 min (a long sweep).
  static const prometheus::Histogram::BucketBoundaries kBuckets = {
      0.01, 0.05, 0.25, 1, 5, 15, 60, 300, 1800};
  tasks_->Add({{"kind", kind}}, kBuckets).Observe(absl::ToDoubleSeconds(took));
}

void CoordinatorMetrics::BaselineRatio(const std::string& node, const std::string& figure,
                                       double ratio) {
  baseline_ratio_->Add({{"node", node}, {"figure", figure}}).Set(ratio);
}

std::string CoordinatorMetrics::Text() const { return controlplane::Exposition(*registry_); }

}  // namespace nodeprobe::coordinator
