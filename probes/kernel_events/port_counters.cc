// File: port_counters.cc
#include "probes/kernel_events/port_counters.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "probes/framework/result_util.h"

namespace nodeprobe::kernel {
namespace {

constexpr const char* kCounters[] = {"link_downed", "link_error_recovery", "symbol_error"};

}  // namespace

PortSnapshot ReadPortErrorCounters(const platform::FileTree& sys) {
  PortSnapshot out;
  absl::StatusOr<std::vector<std::string>> devices = sys.ListDir("class/infiniband");
  if (!devices.ok()) return out;
  for (const std::string& dev : *devices) {
    absl::StatusOr<std::vector<std::string>> ports =
        sys.ListDir(absl::StrCat("class/infiniband/", dev, "/ports"));
    if (!ports.ok()) continue;
    for (const std::string& port : *ports) {
      std::map<std::string, uint64_t> values;
      for (const char* c : kCounters) {
        absl::StatusOr<std::string> v =
            sys.ReadValue(absl::StrCat("class/infiniband/", dev, "/ports/", port, "/counters/", c));
        uint64_t n = 0;
        if (v.ok() && absl::SimpleAtoi(*v, &n)) values[c] = n;
      }
      if (!values.empty()) out[absl::StrCat(dev, ":", port)] = std::move(values);
    }
  }
  return out;
}

void JudgePortGrowth(const PortSnapshot& before, const PortSnapshot& after, absl::Duration elapsed,
                     v1::Verdict error_severity, v1::ProbeResult* result) {
  const std::string over =
      absl::StrFormat("over %.0f s from its counters", absl::ToDoubleSeconds(elapsed));
  for (const auto& [port, now] : after) {
    auto b = before.find(port);
    if (b == before.end()) continue;
    std::map<std::string, uint64_t> grew;
    bool reset = false;
    for (const auto& [name, n] : now) {
      auto was = b->second.find(name);
      if (was == b->second.end()) continue;
      if (n < was->second) reset = true;
      if (n > was->second) grew[name] = n - was->second;
    }
    if (reset || grew.empty()) continue;
    std::vector<std::string> said;
    for (const auto& [name, d] : grew) {
      said.push_back(absl::StrCat(name, " +", d));
      AddMeasurement(result, "port_errors_grew", static_cast<double>(d), "count",
                     {{"port", port}, {"counter", name}});
    }
    const std::string what = absl::StrJoin(said, ", ");
    if (grew.count("link_downed") || grew.count("link_error_recovery")) {
      AddFinding(result, "RDMA_LINK_FLAPPED", port,
                 absl::StrCat(port, ": the link went down or retrained (", what, ") ", over));
    }
    if (grew.count("symbol_error")) {
      AddFinding(result, "RDMA_ERROR_COUNTERS_GREW", error_severity, port,
                 absl::StrCat(port, ": symbol errors on the wire (", what, ") ", over,
                              ": check the cable, its seating and the switch port"));
    }
  }
}

}  // namespace nodeprobe::kernel
