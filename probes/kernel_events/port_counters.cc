#include "probes/kernel_events/port_counters.h"

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "platform/rdma_sysfs.h"
#include "probes/framework/framework_findings.h"
#include "probes/framework/result_util.h"
#include "probes/kernel_events/aer_counters.h"
#include "probes/kernel_events/kernel_events_findings.h"

namespace nodeprobe::kernel {

PortSnapshot ReadPortErrorCounters(const platform::FileTree& sys) {
  PortSnapshot out;
  absl::StatusOr<std::vector<platform::RawRdmaDevice>> devices = platform::ReadRdmaDevices(sys);
  if (!devices.ok()) return out;
  for (const platform::RawRdmaDevice& dev : *devices) {
    for (const platform::RawRdmaPort& port : dev.ports) {
      std::map<std::string, uint64_t> values;
      for (const char* c : {"link_downed", "link_error_recovery", "symbol_error"}) {
        auto attr = port.counters.find(c);
        uint64_t n = 0;
        if (attr != port.counters.end() && attr->second.value.ok() &&
            absl::SimpleAtoi(absl::StripAsciiWhitespace(*attr->second.value), &n)) {
          values[c] = n;
        }
      }
      if (!values.empty()) out[absl::StrCat(dev.name, ":", port.port)] = std::move(values);
    }
  }
  return out;
}

void JudgePortGrowth(const PortSnapshot& before, const PortSnapshot& after,
                     absl::Duration elapsed, v1::Verdict error_severity,
                     v1::ProbeResult* result) {
  const std::string over =
      absl::StrFormat("over %.0f s from its counters", absl::ToDoubleSeconds(elapsed));
  for (const auto& [port, now] : after) {
    auto b = before.find(port);
    if (b == before.end()) continue;
    bool reset = false;
    const std::map<std::string, uint64_t> grew = CounterGrowth(b->second, now, &reset);
    if (reset || grew.empty()) continue;
    for (const auto& [name, d] : grew) {
      AddMeasurement(result, "port_errors_grew", static_cast<double>(d), "count",
                     {{"port", port}, {"counter", name}});
    }
    const std::string what = GrowthText(grew);
    if (grew.count("link_downed") || grew.count("link_error_recovery")) {
      AddFinding(result, findings::kRdmaLinkFlapped.code, port,
                 absl::StrCat(port, ": the link went down or retrained (", what, ") ", over));
    }
    if (grew.count("symbol_error")) {
      AddFinding(result, findings::kRdmaErrorCountersGrew.code, error_severity, port,
                 absl::StrCat(port, ": symbol errors on the wire (", what, ") ", over,
                              ": check the cable, its seating and the switch port"));
    }
  }
}

}  // namespace nodeprobe::kernel
