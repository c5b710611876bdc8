// File: coordinator_metrics.h
// The coordinator's /metrics, through prometheus-cpp:
//   nodeprobe_coordinator_agents{state}                  gauge: connected, busy
//   nodeprobe_coordinator_stage_runs_total{stage,verdict} counter
//   nodeprobe_coordinator_stage_duration_seconds{stage}   histogram
//   nodeprobe_coordinator_store_bytes                     gauge (database + WAL)
//   nodeprobe_coordinator_store_write_failures_total      counter: run writes that failed
//   nodeprobe_coordinator_task_seconds{kind}              histogram: a task's
//                                  sending to its result (run_probes, run_transfer, ...)
//   nodeprobe_baseline_ratio{node,figure}                 gauge: the figure in the node's
//                                  last accepted run over its class's baseline median
//                                  (runs whose profile sets baseline.use; a series per
//                                  node and judged figure, so a drift can alert)
// The agent gauges and the store size are refreshed by the reaper (every
// silence/3, 10 s by default), not computed per scrape: a scrape of a
// fleet's coordinator costs the serialization only.
#pragma once

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nodeprobe/v1/result.pb.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"

namespace nodeprobe::coordinator {

class CoordinatorMetrics {
 public:
  CoordinatorMetrics();
  // Serves /metrics on `listen`; the port in use. UNAVAILABLE when it
  // cannot listen.
  absl::StatusOr<int> Serve(const std::string& listen);
  void Agents(size_t connected, size_t busy);
  void StageFinished(v1::Stage stage, v1::Verdict verdict, absl::Duration took);
  void StoreBytes(double bytes);
  void StoreWriteFailed();
  void TaskAnswered(const std::string& kind, absl::Duration took);
  void BaselineRatio(const std::string& node, const std::string& figure, double ratio);
  std::string Text() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Gauge* connected_;
  prometheus::Gauge* busy_;
  prometheus::Family<prometheus::Counter>* runs_;
  prometheus::Family<prometheus::Histogram>* duration_;
  prometheus::Gauge* store_;
  prometheus::Counter* store_failures_;
  prometheus::Family<prometheus::Histogram>* tasks_;
  prometheus::Family<prometheus::Gauge>* baseline_ratio_;
};

}  // namespace nodeprobe::coordinator
