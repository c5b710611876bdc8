#include "agent/agent_metrics.h"

#include "controlplane/metrics_http.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::agent {

AgentMetrics::AgentMetrics() : registry_(std::make_shared<prometheus::Registry>()) {
  connected_ = &prometheus::BuildGauge()
                    .Name("nodeprobe_agent_connected")
                    .Help("1 while the agent holds its stream to the coordinator.")
                    .Register(*registry_)
                    .Add({});
  registrations_ = &prometheus::BuildCounter()
                        .Name("nodeprobe_agent_registrations_total")
                        .Help("Sessions with the coordinator since the agent started.")
                        .Register(*registry_)
                        .Add({});
  tasks_ = &prometheus::BuildCounter()
                .Name("nodeprobe_agent_tasks_total")
                .Help("Tasks received from the coordinator, by kind.")
                .Register(*registry_);
  last_run_ = &prometheus::BuildGauge()
                   .Name("nodeprobe_last_run_timestamp_seconds")
                   .Help("When the last run of a stage on this node finished.")
                   .Register(*registry_);
  probe_verdict_ = &prometheus::BuildGauge()
                        .Name("nodeprobe_probe_verdict")
                        .Help("The last single-node run's verdict of each probe (a state set).")
                        .Register(*registry_);
  transfer_bps_ = &prometheus::BuildGauge()
                       .Name("nodeprobe_transfer_bandwidth_bytes_per_second")
                       .Help("The last transfer this node sent, by peer and op.")
                       .Register(*registry_);
  auto counter = [&](const char* name, const char* help) {
    return &prometheus::BuildCounter().Name(name).Help(help).Register(*registry_);
  };
  xid_ =
      counter("nodeprobe_gpu_xid_total", "NVIDIA Xid errors in the kernel log, by GPU and code.");
  off_bus_ = counter("nodeprobe_gpu_fell_off_bus_total",
                     "Times a GPU fell off the PCIe bus, as the kernel log says.");
  sxid_ = counter("nodeprobe_nvswitch_sxid_total",
                  "NVSwitch SXid errors in the kernel log, by switch and code.");
  aer_ = counter("nodeprobe_pcie_aer_errors_total",
                 "PCIe AER errors the kernel logged, by device and severity.");
  link_down_ = counter("nodeprobe_nic_link_down_total",
                       "Times a NIC's link went down, as its driver logged.");
}

absl::StatusOr<int> AgentMetrics::Serve(const std::string& listen) {
  absl::StatusOr<controlplane::MetricsEndpoint> e = controlplane::ServeMetrics(listen, registry_);
  if (!e.ok()) return e.status();
  exposer_ = std::move(e->exposer);
  return e->port;
}

void AgentMetrics::Connected(bool connected) { connected_->Set(connected ? 1 : 0); }

void AgentMetrics::Registered() { registrations_->Increment(); }

void AgentMetrics::Task(const std::string& kind) { tasks_->Add({{"kind", kind}}).Increment(); }

void AgentMetrics::Report(const v1::StageReport& report) {
  last_run_->Add({{"stage", StageName(report.stage())}})
      .Set(static_cast<double>(report.finished().seconds()));
  for (const v1::ProbeResult& r : report.results()) {
    for (v1::Verdict v : {v1::PASS, v1::WARN, v1::FAIL, v1::ERROR, v1::SKIP}) {
      probe_verdict_->Add({{"probe", r.probe()}, {"verdict", VerdictName(v)}})
          .Set(r.verdict() == v ? 1 : 0);
    }
  }
}

void AgentMetrics::Transfer(const v1::ProbeResult& result) {
  if (!result.has_transfer() || result.transfer().results_size() == 0) return;
  const v1::TransferReport& t = result.transfer();
  const double gbps = t.results(0).bw_avg_gbps();
  if (gbps <= 0) return;
  // Bytes, Prometheus' base unit (promtool's lint refuses bits).
  transfer_bps_->Add({{"peer", t.peer()}, {"op", v1::TransferOp_Name(t.op())}})
      .Set(gbps * 1e9 / 8);
}

std::string AgentMetrics::Bounded(const std::string& label, const std::string& value) {
  platform::MutexLock l(&labels_mu_);
  std::set<std::string>& seen = label_values_[label];
  if (seen.count(value) || seen.size() < kMaxLogLabelValues) {
    seen.insert(value);
    return value;
  }
  return "other";
}

void AgentMetrics::KernelEvent(const v1::KernelEvent& e) {
  const std::string code = Bounded("code", std::to_string(e.code()));
  const std::string device = Bounded("device", e.device());
  if (e.kind() == "xid") xid_->Add({{"gpu", device}, {"code", code}}).Increment();
  if (e.kind() == "fell_off_bus") off_bus_->Add({{"gpu", device}}).Increment();
  if (e.kind() == "sxid") sxid_->Add({{"device", device}, {"code", code}}).Increment();
  if (e.kind() == "aer") {
    aer_->Add({{"device", device}, {"severity", Bounded("severity", e.severity())}}).Increment();
  }
  if (e.kind() == "link_down") link_down_->Add({{"device", device}}).Increment();
}

std::string AgentMetrics::Text() const { return controlplane::Exposition(*registry_); }

}  // namespace nodeprobe::agent
