// File: agent_metrics.h
// The agent's /metrics for Prometheus, through prometheus-cpp (its
// registry, its civetweb exposer): whether it is connected, sessions and
// tasks so far, and the last single-node report and transfers it ran:
//   nodeprobe_agent_connected                       gauge 0/1
//   nodeprobe_agent_registrations_total             counter
//   nodeprobe_agent_tasks_total{kind}               counter
//   nodeprobe_last_run_timestamp_seconds{stage}     gauge
//   nodeprobe_probe_verdict{probe,verdict}          state set (1 for the verdict, 0 the rest)
//   nodeprobe_transfer_bandwidth_bytes_per_second{peer,op}  gauge, the last of each
// and the hardware events in the kernel log since the agent started reading
// it (agent/kernel_watch.h; /dev/kmsg begins at boot):
//   nodeprobe_gpu_xid_total{gpu,code}               counter (gpu: its PCI address)
//   nodeprobe_gpu_fell_off_bus_total{gpu}           counter
//   nodeprobe_nvswitch_sxid_total{device,code}      counter
//   nodeprobe_pcie_aer_errors_total{device,severity} counter
//   nodeprobe_nic_link_down_total{device}           counter
// (bytes, not the bits the issue named: promtool's lint wants base units)
// Label values taken from the log (devices, codes) are bounded: the first
// kMaxLogLabelValues distinct ones of each label, then "other", so a
// log full of forged addresses cannot grow the series without end.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "nodeprobe/v1/result.pb.h"
#include "prometheus/counter.h"
#include "prometheus/exposer.h"
#include "prometheus/gauge.h"
#include "platform/mutex.h"
#include "prometheus/registry.h"

namespace nodeprobe::agent {

class AgentMetrics {
 public:
  AgentMetrics();
  // Serves /metrics on `listen` ("0.0.0.0:18519"); the port in use (0 asks
  // for any). UNAVAILABLE when it cannot listen.
  absl::StatusOr<int> Serve(const std::string& listen);

  void Connected(bool connected);
  void Registered();
  void Task(const std::string& kind);
  void Report(const v1::StageReport& report);
  void Transfer(const v1::ProbeResult& result);
  void KernelEvent(const v1::KernelEvent& event);

  // The exposition as a scrape would get it (tests).
  std::string Text() const;

  static constexpr size_t kMaxLogLabelValues = 64;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  prometheus::Gauge* connected_;
  prometheus::Counter* registrations_;
  prometheus::Family<prometheus::Counter>* tasks_;
  prometheus::Family<prometheus::Gauge>* last_run_;
  prometheus::Family<prometheus::Gauge>* probe_verdict_;
  prometheus::Family<prometheus::Gauge>* transfer_bps_;
  prometheus::Family<prometheus::Counter>* xid_;
  prometheus::Family<prometheus::Counter>* off_bus_;
  prometheus::Family<prometheus::Counter>* sxid_;
  prometheus::Family<prometheus::Counter>* aer_;
  prometheus::Family<prometheus::Counter>* link_down_;
  // `value` itself while fewer than kMaxLogLabelValues distinct values of
  // `label` were seen (or it is one of them), else "other".
  std::string Bounded(const std::string& label, const std::string& value);
  platform::Mutex labels_mu_;
  std::map<std::string, std::set<std::string>> label_values_ ABSL_GUARDED_BY(labels_mu_);
};

}  // namespace nodeprobe::agent
